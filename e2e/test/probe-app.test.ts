/**
 * The collector's scheduled probing end to end, against the probe lab's nginx: the scheduler (on its own
 * timer) fills `site_probes` for a registered site and an extra hostname registered with it;
 * `GET /v1/sites/:hostname/probes` answers history and latest profile to the site's token only; turning
 * session tickets off on the server between two cycles fires `probe_resumption_lost` on the webhook, in
 * `/v1/alerts` and on `/metrics`; and ingest keeps answering and storing while a probe hangs on a server
 * that never answers its handshake.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProbeResult, type HandshakeRecord } from '@tlsrum/shared';
import example from '@tlsrum/shared/examples/batch.json' with { type: 'json' };
import { buildApp } from '@tlsrum/collector';
import { seedStore } from '@tlsrum/collector/test/store-template';
import { loadConfig } from '@tlsrum/collector/config';
import { PROBE_SERVERS, startProbeLab, type ProbeLab } from '../lab/probe-servers';
import { freePort } from '../lab/ports';

const ADMIN = 'probe-test-admin-token-0123456789';
const SITE = 'toggle.probe.test';
const STATIC = 'ocsp.probe.test';
/** Accepts TCP connections and never answers: a probe of it waits for its timeout. */
const STALL = 'stall.probe.test';
const PROBE_TIMEOUT_MS = 3000;

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-probe-app-'));
let lab: ProbeLab;
let app: Awaited<ReturnType<typeof buildApp>>;
let readToken: string;
let webhook: HttpServer;
let stall: TcpServer;
const stalled: Socket[] = [];
const events: {
  event: string;
  summary: string;
  alert: { site: string; hostname?: string; check: string; window: string; since: number | null };
}[] = [];

async function until<T>(what: string, get: () => T | Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  lab = await startProbeLab(join(dir, 'lab'));
  webhook = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      events.push(JSON.parse(body));
      res.end();
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  stall = createTcpServer((s) => stalled.push(s.on('error', () => {})));
  const stallPort = await freePort();
  await new Promise<void>((r) => stall.listen(stallPort, '127.0.0.1', r));
  const portOf = (host: string) => lab.ports[PROBE_SERVERS.find((s) => s.host === host)!.id];
  const config = loadConfig({
    DATA_DIR: seedStore(join(dir, 'data')),
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: ADMIN,
    MIN_CLIENTS_PER_CELL: '1',
    MAX_EVENT_LOOP_DELAY_MS: '0',
    RATE_LIMIT_PER_MINUTE: '0',
    ALERT_INTERVAL_MS: '0',
    ALERT_WEBHOOK_URL: `http://127.0.0.1:${(webhook.address() as { port: number }).port}/hook`,
    // A short interval without jitter: the cycles of this test come from the scheduler's own timer.
    PROBE_INTERVAL_MS: '1500',
    // Every answer fresh: records are stored and asked about again at once.
    ANSWER_CACHE_SECONDS: '0',
    PROBE_JITTER: '0',
    PROBE_RUNS: '1',
    PROBE_TIMEOUT_MS: String(PROBE_TIMEOUT_MS),
    PROBE_CA_FILE: lab.ca.caCert,
    PROBE_CONNECT_TO: [
      `${SITE}:443:127.0.0.1:${portOf(SITE)}`,
      `${STATIC}:443:127.0.0.1:${portOf(STATIC)}`,
      `${STALL}:443:127.0.0.1:${stallPort}`,
    ].join(','),
  });
  app = await buildApp(config);
  await app.storeStatus.whenReady;
  const reg = await app.inject({
    method: 'POST',
    url: '/v1/sites',
    headers: { authorization: `Bearer ${ADMIN}` },
    payload: { hostname: SITE },
  });
  expect(reg.statusCode).toBe(201);
  readToken = reg.json().readToken;
  const extra = await app.inject({
    method: 'POST',
    url: `/v1/sites/${SITE}/probe-targets`,
    headers: { authorization: `Bearer ${ADMIN}` },
    payload: { hostname: STATIC },
  });
  expect(extra.statusCode).toBe(201);
}, 120_000);

afterAll(async () => {
  await app?.close();
  for (const s of stalled) s.destroy();
  await new Promise((r) => stall?.close(r));
  await new Promise((r) => webhook?.close(r));
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const probesOf = async (token: string, site = SITE) =>
  app.inject({ method: 'GET', url: `/v1/sites/${site}/probes`, headers: { authorization: `Bearer ${token}` } });

describe('scheduled probing in the collector', () => {
  it('the scheduler probes the site and its extra hostname; the site token reads history and latest profile', async () => {
    await until(
      'two probed hostnames',
      async () => (await probesOf(readToken)).json().latest?.length ?? 0,
      (n) => n === 2,
    );
    const body = (await probesOf(readToken)).json();
    expect(body.hostnames).toEqual([SITE, STATIC]);
    expect(body.intervalMs).toBe(1500);
    for (const p of body.history) expect(Value.Check(ProbeResult, p.result)).toBe(true);
    const latest = Object.fromEntries(body.latest.map((l: { hostname: string }) => [l.hostname, l]));
    expect(latest[SITE].result.resumption).toMatchObject({ '1.2': true, '1.3': true });
    expect(latest[STATIC].result.ocsp.stapled).toBe(true);
    expect(latest[STATIC].findings.map((f: { text: string }) => f.text)).toContain(
      'The certificate status (OCSP) is stapled: browsers need not ask the certificate authority.',
    );
    expect(app.probes.cycles).toBeGreaterThanOrEqual(1);
  });

  it('answers only to the site token or the admin token, and only for registered sites', async () => {
    expect((await app.inject({ method: 'GET', url: `/v1/sites/${SITE}/probes` })).statusCode).toBe(401);
    expect((await probesOf(ADMIN)).statusCode).toBe(200);
    expect((await probesOf(ADMIN, 'unregistered.probe.test')).statusCode).toBe(404);
    expect((await probesOf(readToken, 'other.probe.test')).statusCode).toBe(403);
    const bad = await app.inject({
      method: 'GET',
      url: `/v1/sites/${SITE}/probes?from=10&to=5`,
      headers: { authorization: `Bearer ${readToken}` },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('tickets turned off on the lab server: probe_resumption_lost fires on the next probe (webhook, /v1/alerts, /metrics)', async () => {
    const before = app.probes.cycles;
    await lab.setTickets(false);
    const fired = await until(
      'the firing event',
      () => events.find((e) => e.event === 'firing' && e.alert.check === 'probe_resumption_lost'),
      (e) => e !== undefined,
    );
    // The cycle running while nginx reloaded may have probed the old configuration: the alert comes from a later one.
    expect(app.probes.cycles).toBeGreaterThan(before);
    expect(fired!.summary).toBe(
      `FIRING — ${SITE}: session resumption stopped working: returning visitors now pay for a full handshake`,
    );
    expect(fired!.alert).toMatchObject({ site: SITE, hostname: SITE, window: 'probe' });
    const alerts = (
      await app.inject({
        method: 'GET',
        url: '/v1/alerts?status=firing',
        headers: { authorization: `Bearer ${readToken}` },
      })
    ).json().alerts;
    expect(alerts.map((a: { check: string }) => a.check)).toEqual(['probe_resumption_lost']);
    const metrics = (
      await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN}` } })
    ).body;
    expect(metrics).toContain(
      `tlsrum_probe_alert_firing{site="${SITE}",hostname="${SITE}",check="probe_resumption_lost"} 1`,
    );
    expect(metrics).toContain(
      `tlsrum_probe_alert_firing{site="${SITE}",hostname="${STATIC}",check="probe_resumption_lost"} 0`,
    );
    const changes = (await probesOf(readToken)).json().changes;
    expect(changes).toContainEqual(
      expect.objectContaining({
        hostname: SITE,
        fact: 'TLS 1.3 resumption',
        from: 'on',
        to: 'off',
        at: fired!.alert.since,
      }),
    );
    // The extra hostname's configuration did not change: nothing fires for it.
    expect(events.filter((e) => e.event === 'firing').map((e) => e.alert.check)).toEqual(['probe_resumption_lost']);

    await lab.setTickets(true);
    await until(
      'the resolved event',
      () => events.find((e) => e.event === 'resolved' && e.alert.check === 'probe_resumption_lost'),
      (e) => e !== undefined,
    );
  });

  it('ingest is not blocked while a probe hangs on a server that never answers', async () => {
    const extra = await app.inject({
      method: 'POST',
      url: `/v1/sites/${SITE}/probe-targets`,
      headers: { authorization: `Bearer ${ADMIN}` },
      payload: { hostname: STALL },
    });
    expect(extra.statusCode).toBe(201);
    // Wait until a probe is stuck in the stalled handshake.
    await until(
      'a stalled probe connection',
      () => stalled.length,
      (n) => n > 0,
    );
    const cyclesAtStall = app.probes.cycles;
    const batchId = randomUUID();
    const records = [{ ...(example.records[0] as HandshakeRecord), site: SITE, ts: Date.now() }];
    const res = await app.inject({
      method: 'POST',
      url: '/v1/handshakes',
      payload: { ...example, batchId, sentAt: Date.now(), records },
    });
    expect(res.statusCode).toBe(202);
    const stored = await until(
      'the record in the store',
      async () => {
        const rs = await app.store.query.query({
          query: 'SELECT count() AS n FROM handshakes WHERE batchId = {id:UUID}',
          query_params: { id: batchId },
          format: 'JSONEachRow',
        });
        return Number((await rs.json<{ n: number }>())[0]!.n);
      },
      (n) => n === 1,
    );
    expect(stored).toBe(1);
    // Stored while that probe cycle was still waiting on the silent server.
    expect(app.probes.cycles).toBe(cyclesAtStall);
    // The stalled hostname is then stored as a failed probe with its reason, not lost.
    const body = await until(
      'the stalled probe result',
      async () => (await probesOf(readToken)).json().latest as { hostname: string; result: ProbeResult }[],
      (l) => l.some((p) => p.hostname === STALL),
    );
    expect(body.find((p) => p.hostname === STALL)!.result.errors[0]).toBe(
      `tls: no answer within ${PROBE_TIMEOUT_MS} ms`,
    );
  });
});
