import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../src/metrics/registry';
import { makeBatch, makeRecords, metricValue, postBatch, removeDir, startApp, type TestApp } from './helpers';

describe('metrics registry', () => {
  it('renders counters, gauges and histograms in the Prometheus text format', () => {
    const r = new Registry();
    const c = r.counter('x_total', 'Things.', ['reason']);
    c.inc({ reason: 'a' });
    c.inc({ reason: 'a' }, 2);
    c.inc({ reason: 'q"\\\n' });
    r.gauge('g', 'A gauge.', [], () => [[{}, 1.5]]);
    const h = r.histogram('h_seconds', 'Latency.', [0.1, 1]);
    h.observe(0.05);
    h.observe(0.5);
    h.observe(5);
    expect(r.render()).toBe(
      [
        '# HELP x_total Things.',
        '# TYPE x_total counter',
        'x_total{reason="a"} 3',
        'x_total{reason="q\\"\\\\\\n"} 1',
        '# HELP g A gauge.',
        '# TYPE g gauge',
        'g 1.5',
        '# HELP h_seconds Latency.',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{le="0.1"} 1',
        'h_seconds_bucket{le="1"} 2',
        'h_seconds_bucket{le="+Inf"} 3',
        'h_seconds_sum 5.55',
        'h_seconds_count 3',
        '',
      ].join('\n'),
    );
  });

  it('reads kept and collected series alike; an unlabelled counter is 0 before its first inc', () => {
    const r = new Registry();
    const kept = r.counter('kept_total', 'x');
    expect(r.render()).toContain('\nkept_total 0\n');
    kept.inc();
    expect(kept.get()).toBe(1);
    const collected = r.counter('collected_total', 'x', ['k'], () => [[{ k: 'a' }, 7]]);
    expect([collected.get({ k: 'a' }), collected.get({ k: 'b' })]).toEqual([7, 0]);
    const g = r.gauge('g', 'x', ['k']);
    g.set({ k: 'a' }, 2);
    expect([g.get({ k: 'a' }), g.get({ k: 'b' })]).toEqual([2, undefined]);
    g.reset({ k: 'a' });
    expect(g.get({ k: 'a' })).toBeUndefined();
    expect(r.gauge('h', 'x', [], () => [[{}, 3]]).get()).toBe(3);
  });

  it('returns the existing metric for the same name and kind, refuses another kind, bad names and labels', () => {
    const r = new Registry();
    expect(r.counter('a_total', 'x')).toBe(r.counter('a_total', 'x'));
    expect(() => r.gauge('a_total', 'x')).toThrow(/already registered/);
    expect(() => r.counter('bad name', 'x')).toThrow(/bad metric name/);
    expect(() => r.counter('b_total', 'x', ['l']).inc({ other: '1' })).toThrow(/unknown label/);
    expect(() => r.counter('c_total', 'x').inc({}, -1)).toThrow(RangeError);
  });
});

describe('GET /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ FLUSH_INTERVAL_MS: '60000', MAX_BUFFERED_ROWS: '30' });
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dataDir);
  });
  /** One comparison for many series: a failure shows every value that differs. */
  const expectSeries = (text: string, want: Record<string, number>) =>
    expect(Object.fromEntries(Object.keys(want).map((k) => [k, metricValue(text, k)]))).toEqual(want);
  const scrape = async () => {
    const res = await t.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain; version=0.0.4');
    return res.body;
  };

  it('moves as batches are accepted, refused, spooled and flushed', async () => {
    const before = await scrape();
    expect(metricValue(before, 'tlsrum_records_accepted_total')).toBe(0);
    expect(metricValue(before, 'tlsrum_spool_bytes')).toBe(0);

    const batch = makeBatch(makeRecords(20));
    expect((await postBatch(t.app, batch)).statusCode).toBe(202);
    expect((await postBatch(t.app, batch)).statusCode).toBe(202); // duplicate
    expect((await postBatch(t.app, '{"v":')).statusCode).toBe(400);
    expect((await postBatch(t.app, makeBatch(makeRecords(20)))).statusCode).toBe(503); // 40 > MAX_BUFFERED_ROWS

    let text = await scrape();
    expectSeries(text, {
      tlsrum_records_accepted_total: 20,
      tlsrum_batches_accepted_total: 1,
      'tlsrum_batches_rejected_total{reason="duplicate"}': 1,
      'tlsrum_records_rejected_total{reason="duplicate"}': 20,
      'tlsrum_batches_rejected_total{reason="invalid"}': 1,
      'tlsrum_batches_rejected_total{reason="spool_full"}': 1,
      'tlsrum_records_rejected_total{reason="spool_full"}': 20,
      'tlsrum_http_responses_total{status="503"}': 1,
      tlsrum_spool_rows: 20,
      tlsrum_spool_fsyncs_total: 1,
    });
    expect(metricValue(text, 'tlsrum_spool_bytes')).toBeGreaterThan(20 * 100);

    await t.app.ingest.flush();
    text = await scrape();
    expectSeries(text, {
      tlsrum_spool_rows: 0,
      tlsrum_spool_bytes: 0,
      tlsrum_spool_oldest_age_seconds: 0,
      tlsrum_rows_flushed_total: 20,
      tlsrum_flush_duration_seconds_count: 1,
      tlsrum_store_errors_total: 0,
    });
  });

  it('lets other plugins add series through app.registry', async () => {
    t.app.registry.gauge('tlsrum_test_gauge', 'Added by a test.', ['site']).set({ site: 'www.example.com' }, 0.5);
    expect(metricValue(await scrape(), 'tlsrum_test_gauge{site="www.example.com"}')).toBe(0.5);
  });
});
