import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { scrapedCounter, scrapedGauge } from '../../src/platform/metrics/scraped';
import { makeBatch, makeRecords, metricValue, postBatch, removeDir, startApp, type TestApp } from '../support/helpers';

describe('metrics on prom-client', () => {
  it('renders counters, gauges and histograms in the Prometheus text format', async () => {
    const r = new Registry();
    const c = new Counter({ name: 'x_total', help: 'Things.', labelNames: ['reason'], registers: [r] });
    c.inc({ reason: 'a' });
    c.inc({ reason: 'a' }, 2);
    c.inc({ reason: 'q"\\\n' });
    scrapedGauge(r, { name: 'g', help: 'A gauge.', read: () => 1.5 });
    const h = new Histogram({ name: 'h_seconds', help: 'Latency.', buckets: [0.1, 1], registers: [r] });
    h.observe(0.05);
    h.observe(0.5);
    h.observe(5);
    // prom-client separates metric families with an empty line (allowed by format 0.0.4).
    expect(await r.metrics()).toBe(
      [
        '# HELP x_total Things.',
        '# TYPE x_total counter',
        'x_total{reason="a"} 3',
        'x_total{reason="q\\"\\\\\\n"} 1',
        '',
        '# HELP g A gauge.',
        '# TYPE g gauge',
        'g 1.5',
        '',
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

  it('reads scraped series at each scrape, dropping labelled ones the source no longer has; an unlabelled counter is 0 before its first inc', async () => {
    const r = new Registry();
    const kept = new Counter({ name: 'kept_total', help: 'x', registers: [r] });
    expect(await r.metrics()).toContain('\nkept_total 0\n');
    kept.inc();
    expect(metricValue(await r.metrics(), 'kept_total')).toBe(1);
    let total = 7;
    scrapedCounter(r, { name: 'collected_total', help: 'x', labelNames: ['k'], read: () => [[{ k: 'a' }, total]] });
    let sites: [string, number][] = [
      ['a', 2],
      ['b', 3],
    ];
    scrapedGauge(r, {
      name: 'g',
      help: 'x',
      labelNames: ['site'],
      read: () => sites.map(([site, v]) => [{ site }, v] as const),
    });
    let text = await r.metrics();
    expect([metricValue(text, 'collected_total{k="a"}'), metricValue(text, 'collected_total{k="b"}')]).toEqual([
      7,
      undefined,
    ]);
    expect([metricValue(text, 'g{site="a"}'), metricValue(text, 'g{site="b"}')]).toEqual([2, 3]);
    total = 9;
    sites = [['b', 4]];
    text = await r.metrics();
    expect(metricValue(text, 'collected_total{k="a"}')).toBe(9);
    expect([metricValue(text, 'g{site="a"}'), metricValue(text, 'g{site="b"}')]).toEqual([undefined, 4]);
  });

  it('refuses a second series of the same name, bad names, unknown labels and a counter going down', () => {
    const r = new Registry();
    new Counter({ name: 'a_total', help: 'x', registers: [r] });
    expect(() => new Gauge({ name: 'a_total', help: 'x', registers: [r] })).toThrow(/already been registered/);
    expect(() => new Counter({ name: 'bad name', help: 'x', registers: [r] })).toThrow(/Invalid metric name/);
    expect(() =>
      new Counter({ name: 'b_total', help: 'x', labelNames: ['l'] as string[], registers: [r] }).inc({ other: '1' }),
    ).toThrow(/not included in initial labelset/);
    expect(() => new Counter({ name: 'c_total', help: 'x', registers: [r] }).inc(-1)).toThrow(
      /not possible to decrease/,
    );
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
    new Gauge({
      name: 'tlsrum_test_gauge',
      help: 'Added by a test.',
      labelNames: ['site'],
      registers: [t.app.registry],
    }).set({ site: 'www.example.com' }, 0.5);
    expect(metricValue(await scrape(), 'tlsrum_test_gauge{site="www.example.com"}')).toBe(0.5);
  });
});
