/**
 * Regression alerts on generated data in a real embedded store: a real regression (resumption turned
 * off, full handshakes ~8× slower than resumed ones) fires; pure noise and thin data stay silent; the
 * webhook gets the events through failures; /v1/alerts and /metrics show the verdicts.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateChecks, type Thresholds } from '../../src/alerts/checks';
import { AlertEvaluator, WEEK_MS, type AlertEvent } from '../../src/alerts/evaluator';
import { normalUpperTail, twoProportionGreater } from '../../src/alerts/stats';
import { Webhook } from '../../src/alerts/webhook';
import type { WindowPair, WindowStats } from '../../src/alerts/window-query';
import { ConfigError, loadConfig } from '../../src/platform/config';
import { generate, insertRows, rng, type Traffic } from '../support/generate';
import { metricValue, removeDir, startApp, type TestApp } from '../support/helpers';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const defaults: Thresholds = loadConfig({ MIN_CLIENTS_PER_CELL: '20' }).alerts.thresholds;

describe('statistics', () => {
  it('normal tail matches tabulated values', () => {
    expect(normalUpperTail(0)).toBeCloseTo(0.5, 6);
    expect(normalUpperTail(1.959964)).toBeCloseTo(0.025, 5);
    expect(normalUpperTail(3.719016)).toBeCloseTo(1e-4, 6);
    expect(normalUpperTail(-1.644854)).toBeCloseTo(0.95, 5);
  });

  it('two-proportion z-test: textbook example and degenerate cases', () => {
    // 60/100 vs 45/100: pooled 0.525, se = sqrt(.525*.475*.02) = 0.07062, z = 2.124
    const t = twoProportionGreater(60, 100, 45, 100);
    expect(t.z).toBeCloseTo(2.124, 3);
    expect(t.p).toBeCloseTo(0.0168, 3);
    expect(twoProportionGreater(0, 0, 5, 10).p).toBe(1);
    expect(twoProportionGreater(10, 10, 10, 10).p).toBe(1);
  });
});

/** Window statistics computed in JS from samples, the way the SQL computes them (for the noise simulation). */
function statsOf(
  samples: { resumed: boolean; tls13: boolean; h3: boolean; tls: number; connect: number }[],
  qTls: number,
  qConnect: number,
): WindowStats {
  const p75 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.75 * (xs.length - 1))]!;
  return {
    records: samples.length,
    clients: samples.length,
    resumedKnown: samples.length,
    resumed: samples.filter((s) => s.resumed).length,
    versionKnown: samples.length,
    tls13: samples.filter((s) => s.tls13).length,
    h3: samples.filter((s) => s.h3).length,
    tlsP75: p75(samples.map((s) => s.tls)),
    connectP75: p75(samples.map((s) => s.connect)),
    tlsAbovePooled: samples.filter((s) => s.tls > qTls).length,
    connectAbovePooled: samples.filter((s) => s.connect > qConnect).length,
  };
}

describe('checks on simulated windows', () => {
  const draw = (r: () => number, n: number, resumedShare: number, fullTls: number) =>
    Array.from({ length: n }, () => {
      const resumed = r() < resumedShare;
      const tcp = 40 * (0.75 + 0.5 * r());
      const tls = (resumed ? 10 : fullTls) * (0.75 + 0.5 * r()) + 30 * r() ** 4;
      return { resumed, tls13: r() < 0.7, h3: r() < 0.3, tls, connect: tcp + tls };
    });
  const pairOf = (a: ReturnType<typeof draw>, b: ReturnType<typeof draw>): WindowPair => {
    const all = [...a, ...b];
    const q = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(0.75 * (xs.length - 1))]!;
    const qTls = q(all.map((s) => s.tls));
    const qConnect = q(all.map((s) => s.connect));
    return {
      current: statsOf(a, qTls, qConnect),
      baseline: statsOf(b, qTls, qConnect),
      pooledTlsP75: qTls,
      pooledConnectP75: qConnect,
    };
  };

  it('stays silent on 300 pairs of pure noise, small and large', () => {
    const r = rng(7);
    let fired = 0;
    let evaluated = 0;
    for (let i = 0; i < 300; i++) {
      const n = [250, 1000, 5000][i % 3]!;
      const results = evaluateChecks(pairOf(draw(r, n, 0.6, 80), draw(r, n, 0.6, 80)), defaults);
      evaluated += results.filter((x) => x.status !== 'insufficient_data').length;
      fired += results.filter((x) => x.status === 'firing').length;
    }
    expect(evaluated).toBe(1500);
    expect(fired).toBe(0);
  });

  it('fires on the resumption incident even with a few hundred records', () => {
    const r = rng(8);
    // 85 % of handshakes resumed a week ago (so p75 was a resumed one), none now: p75 becomes a full one.
    const results = evaluateChecks(pairOf(draw(r, 250, 0, 80), draw(r, 250, 0.85, 80)), defaults);
    const by = Object.fromEntries(results.map((x) => [x.check, x.status]));
    expect(by).toMatchObject({
      resumption_drop: 'firing',
      tls_p75_rise: 'firing',
      connect_p75_rise: 'firing',
      tls13_drop: 'ok',
      h3_drop: 'ok',
    });
  });

  it('does not fire on a significant change smaller than the effect size', () => {
    const r = rng(9);
    // 60 % → 55 % resumed on 50 000 records: highly significant, but under the 10-point threshold.
    const results = evaluateChecks(pairOf(draw(r, 50_000, 0.55, 80), draw(r, 50_000, 0.6, 80)), defaults);
    const res = results.find((x) => x.check === 'resumption_drop')!;
    expect(res.pValue).toBeLessThan(1e-6);
    expect(res.status).toBe('ok');
    // With a lower threshold the same data fires.
    const strict = evaluateChecks(pairOf(draw(r, 50_000, 0.55, 80), draw(r, 50_000, 0.6, 80)), {
      ...defaults,
      shareDrop: 0.03,
    });
    expect(strict.find((x) => x.check === 'resumption_drop')!.status).toBe('firing');
  });
});

describe('configuration', () => {
  it('reads thresholds and refuses bad values', () => {
    const c = loadConfig({
      ALERT_ALPHA: '0.001',
      ALERT_P75_RISE: '0.5',
      ALERT_WINDOWS: 'day',
      ALERT_SOURCE: 'any',
      ALERT_MIN_SAMPLES: '50',
    }).alerts;
    expect(c.thresholds).toMatchObject({ alpha: 0.001, p75Rise: 0.5, minSamples: 50, minClients: 20 });
    expect(c.windows).toEqual(['day']);
    expect(c.source).toBeNull();
    expect(() => loadConfig({ ALERT_ALPHA: 'often' })).toThrow(ConfigError);
    expect(() => loadConfig({ ALERT_WINDOWS: 'week' })).toThrow(/ALERT_WINDOWS/);
    expect(() => loadConfig({ ALERT_WEBHOOK_URL: 'ftp://x' })).toThrow(/ALERT_WEBHOOK_URL/);
  });
});

/** A webhook receiver that answers 500 to its first `failFirst` requests. */
async function receiver(
  failFirst: number,
): Promise<{ server: Server; url: string; bodies: unknown[]; requests: () => number }> {
  const bodies: unknown[] = [];
  let n = 0;
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      n++;
      if (n <= failFirst) {
        res.writeHead(500).end();
        return;
      }
      bodies.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/hook`, bodies, requests: () => n };
}

describe('alerts on a real store', () => {
  let t: TestApp;
  const base = {
    from: NOW - HOUR,
    to: NOW,
    rtt: 40,
    fullTls: 80,
    resumedTls: 10,
    tls13Share: 0.7,
    h3Share: 0.3,
    clients: 150,
  };
  const week = (x: Omit<Traffic, 'from' | 'to'> & { from: number; to: number }) => ({
    ...x,
    from: x.from - WEEK_MS,
    to: x.to - WEEK_MS,
  });

  beforeAll(async () => {
    // Exact arithmetic on data with many records per client: without the per-client cap (flood.test.ts tests it).
    t = await startApp({
      ADMIN_TOKEN: 'admin-token-0123456789',
      ALERT_INTERVAL_MS: '0',
      ALERT_WINDOWS: 'hour',
      CLIENT_RECORDS_PER_CELL_DAY: '0',
    });
    const rows = [
      // broken.example: a deploy turned resumption off — every handshake is now a full one (8× slower).
      // 85 % resumed a week ago: p75 was a resumed handshake; now it is a full one.
      ...generate(week({ ...base, site: 'broken.example', records: 800, resumedShare: 0.85, seed: 1 })),
      ...generate({ ...base, site: 'broken.example', records: 800, resumedShare: 0, seed: 2 }),
      // steady.example: the same traffic both weeks, only noise.
      ...generate(week({ ...base, site: 'steady.example', records: 800, resumedShare: 0.6, seed: 3 })),
      ...generate({ ...base, site: 'steady.example', records: 800, resumedShare: 0.6, seed: 4 }),
      // thin.example: broken too, but with too few records to say so.
      ...generate(week({ ...base, site: 'thin.example', records: 60, clients: 30, resumedShare: 0.6, seed: 5 })),
      ...generate({ ...base, site: 'thin.example', records: 60, clients: 30, resumedShare: 0, seed: 6 }),
    ];
    await insertRows(t.app.store.ingest, rows);
    for (const s of ['broken.example', 'steady.example', 'thin.example']) await t.app.sites.register(s);
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dataDir);
  });

  it('fires on the regression, stays silent on noise and on thin data', async () => {
    const states = await t.app.alerts.evaluate(NOW);
    const of = (site: string) =>
      Object.fromEntries(states.filter((s) => s.site === site).map((s) => [s.check, s.status]));
    expect(of('broken.example')).toEqual({
      resumption_drop: 'firing',
      tls_p75_rise: 'firing',
      connect_p75_rise: 'firing',
      tls13_drop: 'ok',
      h3_drop: 'ok',
    });
    expect(Object.values(of('steady.example'))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(Object.values(of('thin.example'))).toEqual(Array(5).fill('insufficient_data'));
    const res = states.find((s) => s.site === 'broken.example' && s.check === 'resumption_drop')!;
    expect(res.current).toBe(0);
    expect(res.baseline).toBeGreaterThan(0.8);
    expect(res.baseline).toBeLessThan(0.9);
    expect(res.samples).toEqual({ current: 800, baseline: 800 });
    expect(res.since).toBe(NOW);
    const tls = states.find((s) => s.site === 'broken.example' && s.check === 'tls_p75_rise')!;
    expect(tls.current! / tls.baseline!).toBeGreaterThan(4);
  });

  it('shows the verdicts in /v1/alerts, scoped by token', async () => {
    const none = await t.app.inject({ url: '/v1/alerts' });
    expect(none.statusCode).toBe(401);
    const wrong = await t.app.inject({ url: '/v1/alerts', headers: { authorization: 'Bearer nope-nope-nope-nope' } });
    expect(wrong.statusCode).toBe(401);
    const res = await t.app.inject({
      url: '/v1/alerts?status=firing',
      headers: { authorization: 'Bearer admin-token-0123456789' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.evaluatedAt).toBe(NOW);
    expect(body.thresholds.alpha).toBe(1e-4);
    expect(body.alerts.map((a: { site: string; check: string }) => `${a.site} ${a.check}`).sort()).toEqual([
      'broken.example connect_p75_rise',
      'broken.example resumption_drop',
      'broken.example tls_p75_rise',
    ]);
    const one = await t.app.inject({
      url: '/v1/alerts?site=steady.example',
      headers: { authorization: 'Bearer admin-token-0123456789' },
    });
    expect(one.json().alerts).toHaveLength(5);
  });

  it('exposes ratios, p75s and firing gauges on /metrics', async () => {
    const text = (await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer admin-token-0123456789' } }))
      .body;
    expect(metricValue(text, 'tlsrum_site_resumption_ratio{site="broken.example",window="hour"}')).toBe(0);
    expect(metricValue(text, 'tlsrum_site_resumption_ratio{site="steady.example",window="hour"}')).toBeGreaterThan(0.5);
    expect(
      metricValue(text, 'tlsrum_site_alert_firing{site="broken.example",window="hour",check="resumption_drop"}'),
    ).toBe(1);
    expect(
      metricValue(text, 'tlsrum_site_alert_firing{site="steady.example",window="hour",check="resumption_drop"}'),
    ).toBe(0);
    expect(metricValue(text, 'tlsrum_site_tls_p75_seconds{site="broken.example",window="hour"}')).toBeGreaterThan(0.06);
    // Thin data is not reported as a ratio at all (small cells).
    expect(metricValue(text, 'tlsrum_site_resumption_ratio{site="thin.example",window="hour"}')).toBeUndefined();
    expect(metricValue(text, 'tlsrum_alert_evaluations_total')).toBeGreaterThanOrEqual(1);
  });

  it('posts firing and resolved events to the webhook, retrying through failures', async () => {
    const hook = await receiver(2);
    const webhook = new Webhook({ url: hook.url, retries: 4, timeoutMs: 2000, backoffMs: 10 });
    const events: AlertEvent[] = [];
    let sites = ['broken.example', 'steady.example'];
    const evaluator = new AlertEvaluator({
      client: t.app.store.query,
      sites: () => sites,
      config: { ...t.app.config.alerts, windows: ['hour'] },
      clientCap: t.app.config.clientRecordsPerCellDay,
      webhook,
      onEvent: (e) => events.push(e),
    });
    await evaluator.evaluate(NOW);
    // Same verdicts again: no new events.
    await evaluator.evaluate(NOW + 60_000);
    sites = ['steady.example'];
    await evaluator.evaluate(NOW + 120_000);
    await webhook.idle();
    await webhook.close();
    hook.server.close();
    expect(events.map((e) => `${e.event} ${e.alert.check}`)).toEqual([
      'firing resumption_drop',
      'firing tls_p75_rise',
      'firing connect_p75_rise',
      'resolved resumption_drop',
      'resolved tls_p75_rise',
      'resolved connect_p75_rise',
    ]);
    expect(hook.requests()).toBe(8); // 2 refused + 6 delivered
    expect(hook.bodies).toHaveLength(6);
    expect(hook.bodies[0]).toMatchObject({
      source: 'tlsrum',
      event: 'firing',
      alert: { site: 'broken.example', check: 'resumption_drop', status: 'firing' },
    });
    expect((hook.bodies[0] as { summary: string }).summary).toMatch(
      /^FIRING — broken\.example: resumption share over the last hour is 0\.0 %/,
    );
    expect(webhook.delivered).toBe(6);
    expect(webhook.failed).toBe(0);
  });

  it('gives up after the configured retries and counts the failure', async () => {
    const hook = await receiver(100);
    const failures: number[] = [];
    const webhook = new Webhook({
      url: hook.url,
      retries: 2,
      timeoutMs: 2000,
      backoffMs: 5,
      onFailed: (_e, n) => failures.push(n),
    });
    await webhook.send({ test: true });
    await webhook.close();
    hook.server.close();
    expect(hook.requests()).toBe(3);
    expect(failures).toEqual([3]);
    expect(webhook.failed).toBe(1);
  });
});
