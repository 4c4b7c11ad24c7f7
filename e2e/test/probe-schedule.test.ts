/**
 * The probe scheduler on a real embedded ClickHouse against the probe lab's nginx: a cycle fills
 * `site_probes` with the contract JSON; turning session tickets off on the server between two cycles makes
 * the change check fire on the first probe that sees it, and turning them back on resolves it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProbeResult } from '@tlsrum/shared';
import { evaluateProbeChecks } from '@tlsrum/collector/probes/changes';
import { ProbeScheduler } from '@tlsrum/collector/probes/scheduler';
import { listProbes } from '@tlsrum/collector/probes/store';
import { openStore, type Store } from '@tlsrum/collector/store/clients';
import { migrate } from '@tlsrum/collector/store/migrate';
import { PROBE_SERVERS, startProbeLab, type ProbeLab } from '../lab/probe-servers';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-probe-schedule-'));
let lab: ProbeLab;
let store: Store;
let scheduler: ProbeScheduler;
const SITE = 'toggle.probe.test';
const STATIC = 'ocsp.probe.test';

beforeAll(async () => {
  lab = await startProbeLab(join(dir, 'lab'));
  store = openStore({ dataDir: join(dir, 'store'), clickhouse: null });
  await migrate(store.ingest);
  const portOf = (host: string) => lab.ports[PROBE_SERVERS.find((s) => s.host === host)!.id];
  scheduler = new ProbeScheduler({
    client: store.query,
    config: { intervalMs: 0, concurrency: 2, timeoutMs: 5000, runs: 1, jitter: 0.1 },
    // The site and an extra hostname registered for it (a static host).
    targets: () => [
      { site: SITE, hostname: SITE },
      { site: SITE, hostname: STATIC },
    ],
    urlOf: (h) => `https://${h}:${portOf(h)}/`,
    probeOptions: { ca: [readFileSync(lab.ca.caCert, 'utf8')] },
    // The lab's servers are on loopback: allow-listed explicitly, as PROBE_CONNECT_TO does in the collector.
    policy: {
      allow: new Map([SITE, STATIC].map((h) => [h, { address: lab.resolve[h]!, port: portOf(h) }])),
      dnsServers: [],
      timeoutMs: 5000,
    },
  });
}, 120_000);

afterAll(async () => {
  await scheduler?.stop();
  await store?.close();
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const history = async (hostname: string) =>
  (await listProbes(store.query, SITE, 0, Date.now() + 1000)).filter((p) => p.hostname === hostname);

describe('probe scheduler and change checks against the lab', () => {
  it('a cycle probes every registered hostname and stores the contract JSON with the certificate identity', async () => {
    const probed = await scheduler.runCycle();
    expect(probed.map((p) => p.hostname).sort()).toEqual([STATIC, SITE].sort());
    const rows = await listProbes(store.query, SITE, 0, Date.now() + 1000);
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(Value.Check(ProbeResult, r.result)).toBe(true);
      expect(r.result.errors).toEqual([]);
      expect(r.identity.leafSpkiSha256).toMatch(/^[0-9a-f]{64}$/);
    }
    const site = (await history(SITE))[0]!;
    expect(site.result.resumption).toEqual({ '1.2': true, '1.3': true, ticketLifetimeS: 600 });
    expect((await history(STATIC))[0]!.result.ocsp.stapled).toBe(true);
    expect(evaluateProbeChecks(SITE, await history(SITE)).filter((c) => c.status === 'firing')).toEqual([]);
  });

  it('tickets turned off between two probes: probe_resumption_lost fires on the first probe that sees it', async () => {
    await lab.setTickets(false);
    const [second] = (await scheduler.runCycle()).filter((p) => p.hostname === SITE);
    // nginx (OpenSSL) with tickets and cache off still sends a TLS 1.3 ticket it cannot honour: a lifetime is
    // announced, resumption fails — which is why resumption is tried, not inferred from the ticket.
    expect(second!.outcome.result.resumption).toEqual({ '1.2': false, '1.3': false, ticketLifetimeS: 600 });
    const checks = evaluateProbeChecks(SITE, await history(SITE));
    const lost = checks.find((c) => c.check === 'probe_resumption_lost')!;
    expect(lost.status).toBe('firing');
    expect(lost.since).toBe(second!.at);
    expect(lost.summary).toBe(
      `${SITE}: session resumption stopped working: returning visitors now pay for a full handshake`,
    );
    // Nothing else about the server changed.
    expect(checks.filter((c) => c.status === 'firing').map((c) => c.check)).toEqual(['probe_resumption_lost']);
    // The static host is unaffected.
    expect(evaluateProbeChecks(STATIC, await history(STATIC)).filter((c) => c.status === 'firing')).toEqual([]);
  });

  it('still off at the next probe: still firing since the first; tickets back on: resolved', async () => {
    const firstOff = (await history(SITE))[1]!.at;
    await scheduler.runCycle();
    expect(
      evaluateProbeChecks(SITE, await history(SITE)).find((c) => c.check === 'probe_resumption_lost'),
    ).toMatchObject({ status: 'firing', since: firstOff });
    await lab.setTickets(true);
    await scheduler.runCycle();
    expect(
      evaluateProbeChecks(SITE, await history(SITE)).find((c) => c.check === 'probe_resumption_lost'),
    ).toMatchObject({ status: 'ok', since: null });
  });
});
