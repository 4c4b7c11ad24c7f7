/**
 * Seed 003's incident in the lab, end to end: a site whose session resumption is switched off mid-run,
 * measured by the site's own beacon on its pages, noticed by tlsrum's real collector (embedded store):
 * its field alert `resumption_drop` (records of source `page`, ALERT_SOURCE=page) and its probe's change
 * alert `probe_resumption_lost`.
 *
 * The site `b.t13-h2.lab.test` sends the `Server-Timing` TLS lines, so every beacon record knows its
 * resumption. Visitors and the collector's probe reach it at one address: a switch in front of the lab's
 * nginx, first to the TLS 1.3 server with tickets (resumes), then — "a deploy turned resumption off" — to
 * the one with tickets and session cache off. Each of ≥ 40 simulated visitors (Chromium, a browser context
 * of its own, reaching the collector through its own front with its own address: e2e/lab/beacon-front.ts)
 * views the site's page three times; the beacon sends each view's new connection.
 *
 * The field alert compares the last hour with the same hour a week earlier. The visits before the switch
 * are that baseline: the fronts keep their beacon bodies, and the collector's own beacon steps (identity
 * from the visitor's address, records classified with the site's profile) turn them into records dated
 * a week back, submitted to its ingest pipeline (the endpoint refuses a `ts` more than 24 h off its
 * clock). The visits after the switch go through the fronts to `POST /v1/beacon`, as in production.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '@tlsrum/collector';
import { loadConfig } from '@tlsrum/collector/config';
import { BeaconIdentity } from '@tlsrum/collector/ingest/beacon/identity';
import { environmentOf, pageViewBatch } from '@tlsrum/collector/ingest/beacon/records';
import type { AlertEvaluator } from '@tlsrum/collector/alerts/evaluator';
import type { BeaconBody } from '@tlsrum/shared';
import { beaconTag, startBeaconFronts, visitorAddresses, type BeaconFronts } from '../lab/beacon-front';
import type { RunningLab } from '../lab/lab';
import type { RttProfile } from '../lab/profiles';
import { hostOf, type ServerId } from '../lab/servers';

const WEEK_MS = 7 * 86_400_000;
const ADMIN_TOKEN = 'seeds-admin-token-0123456789';

export interface AlertRun {
  site: string;
  /** Simulated visitors per window (each a client identity of its own). */
  clients: number;
  /** The records the alert compares: their source. */
  source: 'page';
  records: { baseline: number; current: number };
  /** Beacon bodies the visitors sent per window. */
  beacons: { baseline: number; current: number };
  /** Share of records with resumption known that resumed, per window. */
  resumedShare: { baseline: number | null; current: number | null };
  thresholds: { alpha: number; minSamples: number; minClients: number; shareDrop: number; p75Rise: number };
  /** Every check's verdict for the site's hour window. */
  checks: { check: string; status: string; current: number | null; baseline: number | null; pValue: number | null }[];
  /** The probe's change checks for the site after the switch. */
  probeChecks: { check: string; status: string; summary: string }[];
  /** What the engine would post to its webhook. */
  events: string[];
}

/** What the run asks of the browser side (beacon/test/support/lab-visits.ts: runVisitors). */
type RunVisitors = (
  lab: RunningLab,
  fronts: BeaconFronts,
  o: {
    browser: 'chromium';
    profile: RttProfile;
    servers: ServerId[];
    visitors: readonly number[];
    rounds: number;
    parallel: number;
    urlOf: (server: ServerId, visitor: number) => string;
  },
) => Promise<{ views: { beacons: number; error?: string }[] }>;

/**
 * The browser side lives in the beacon package's test support (it drives the extension package's
 * browser launcher, whose project references this one): imported by path at run time, as the accuracy
 * report's arms are.
 */
async function runVisitorsFn(): Promise<RunVisitors> {
  const path = resolve(
    fileURLToPath(new URL('.', import.meta.url)),
    '..',
    '..',
    'beacon',
    'test',
    'support',
    'lab-visits.ts',
  );
  return ((await import(path)) as { runVisitors: RunVisitors }).runVisitors;
}

/** A TCP switch in front of the lab's nginx: every new connection goes to the current upstream port. */
async function startSwitch(
  upstream: number,
): Promise<{ port: number; to: (p: number) => void; close: () => Promise<void> }> {
  let target = upstream;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const up = connect(target, '127.0.0.1');
    for (const s of [client, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(up).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as { port: number }).port,
    to: (p) => {
      target = p;
      // Connections to the old server end with the deploy.
      for (const s of sockets) s.destroy();
    },
    close: () => new Promise((r) => (server.close(() => r()), sockets.forEach((s) => s.destroy()))),
  };
}

export async function resumptionAlertRun(
  lab: RunningLab,
  profile: RttProfile,
  o: { clients: number; views: number; parallel: number; onProgress?: (l: string) => void },
): Promise<AlertRun> {
  const server: ServerId = 't13-h2';
  const site = hostOf('b', server);
  const sw = await startSwitch(lab.ports['t13-h2']);
  const dataDir = mkdtempSync(join(tmpdir(), 'tlsrum-seeds-collector-'));
  // Each window has as many beacon records as visitors × views; the check needs most of them.
  const minSamples = Math.floor(0.8 * o.clients * o.views);
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN,
    // The fronts are the one proxy in front of the collector.
    TRUST_PROXY: '1',
    ALERT_MIN_SAMPLES: String(minSamples),
    ALERT_INTERVAL_MS: '0',
    ALERT_WINDOWS: 'hour',
    ALERT_SOURCE: 'page',
    // Probes only when the run asks (before and after the switch), at the switch's address.
    PROBE_INTERVAL_MS: '0',
    // Every answer fresh: records are stored and asked about again at once.
    ANSWER_CACHE_SECONDS: '0',
    PROBE_CA_FILE: lab.ca.caCert,
    PROBE_CONNECT_TO: `${site}:443:127.0.0.1:${sw.port}`,
  });
  const app = await buildApp(config);
  let fronts: BeaconFronts | null = null;
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    await app.storeStatus.whenReady;
    const res = await app.inject({
      method: 'POST',
      url: '/v1/sites',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { hostname: site },
    });
    if (res.statusCode !== 201) throw new Error(`registering ${site}: ${res.statusCode} ${res.body}`);
    await app.sites.refresh();
    const addresses = visitorAddresses(o.clients);
    fronts = await startBeaconFronts({
      collector: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
      addresses,
      cert: lab.ca.leafCert,
      key: lab.ca.leafKey,
    });
    // The site's page: a same-origin image and the beacon's tag (one copy per visitor: its own front).
    fronts.origins.forEach((front, v) =>
      writeFileSync(
        join(lab.dir, 'www', 'p', `seed-site.v${v}.html`),
        `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>seed site</title>${beaconTag(front, site)}<img src="/r/a.gif" alt="">\n`,
      ),
    );
    const runVisitors = await runVisitorsFn();
    const visitors = Array.from({ length: o.clients }, (_, i) => i);
    const visit = async (w: string) => {
      const t0 = Date.now();
      const run = await runVisitors(lab, fronts!, {
        browser: 'chromium',
        profile,
        servers: [server],
        visitors,
        rounds: o.views,
        parallel: o.parallel,
        urlOf: (_s, v) => `https://${site}:${sw.port}/p/seed-site.v${v}.html`,
      });
      const failed = run.views.filter((v) => v.error);
      o.onProgress?.(
        `alert run: ${w}: ${run.views.length} page views by ${o.clients} visitors in ${Date.now() - t0} ms, ${run.views.reduce((n, v) => n + v.beacons, 0)} beacons${failed.length ? `; ${failed.length} failed (${failed[0]!.error})` : ''}`,
      );
    };

    // Before the deploy: the probe sees resumption working, and the visitors' beacons are the baseline.
    await app.probes.runCycle();
    fronts.forward = false;
    await visit('before the switch (tickets on)');
    const baselineBodies = fronts.captured.splice(0);
    fronts.forward = true;

    // The deploy: the same hostname and address now served without tickets or session cache.
    sw.to(lab.ports['t13-notix']);
    await app.probes.runCycle();
    await visit('after the switch (tickets and session cache off)');
    const currentBodies = fronts.captured.filter((c) => c.status === 202);

    // The baseline a week back, through the collector's own beacon steps and its ingest pipeline.
    const now = Date.now();
    const weekAgo = now - WEEK_MS;
    const identity = new BeaconIdentity(() => weekAgo);
    const origin = { country: '', receivedAt: weekAgo, isRegisteredSite: (h: string) => app.sites.has(h) };
    for (const c of baselineBodies) {
      const body = JSON.parse(c.body) as BeaconBody;
      const { batch } = pageViewBatch({
        body: { ...body, timeOrigin: body.timeOrigin - WEEK_MS },
        hostnames: new Set([site]),
        env: environmentOf(c.headers),
        clientToken: identity.tokenFor(site, addresses[c.visitor]!),
        profile: app.profiles.get(site),
        now: weekAgo,
      });
      if (batch) await app.ingest.submit(batch, origin);
    }
    await app.ingest.flush();

    const windowRecords = async (from: number, to: number) => {
      const rs = await app.store.query.query({
        query:
          "SELECT count() AS n, countIf(resumed IS NOT NULL) AS known, countIf(resumed = true) AS yes FROM handshakes WHERE site = {site:String} AND source = 'page' AND ts >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts < fromUnixTimestamp64Milli({to:Int64}, 'UTC')",
        query_params: { site, from, to },
        format: 'JSONEachRow',
      });
      const [r] = await rs.json<{ n: number | string; known: number | string; yes: number | string }>();
      const known = Number(r?.known ?? 0);
      return { n: Number(r?.n ?? 0), share: known ? Number(r?.yes ?? 0) / known : null };
    };
    const baseline = await windowRecords(weekAgo - 3_600_000, weekAgo + 60_000);
    const current = await windowRecords(now - 3_600_000, now + 60_000);

    const events: string[] = [];
    // The alerts plugin decorates the app; its type augmentation is not part of the package's exports.
    const { alerts } = app as unknown as { alerts: AlertEvaluator };
    const states = await alerts.evaluate(now);
    for (const s of states.filter((x) => x.site === site && x.status === 'firing'))
      events.push(`FIRING — ${s.window === 'probe' ? `${s.check}: ${s.summary ?? ''}` : s.check}`);
    const t = config.alerts.thresholds;
    return {
      site,
      clients: o.clients,
      source: 'page',
      records: { baseline: baseline.n, current: current.n },
      beacons: { baseline: baselineBodies.length, current: currentBodies.length },
      resumedShare: { baseline: baseline.share, current: current.share },
      thresholds: {
        alpha: t.alpha,
        minSamples: t.minSamples,
        minClients: t.minClients,
        shareDrop: t.shareDrop,
        p75Rise: t.p75Rise,
      },
      checks: states
        .filter((x) => x.site === site && x.window !== 'probe')
        .map((x) => ({ check: x.check, status: x.status, current: x.current, baseline: x.baseline, pValue: x.pValue })),
      probeChecks: states
        .filter((x) => x.site === site && x.window === 'probe')
        .map((x) => ({ check: x.check, status: x.status, summary: x.summary ?? '' })),
      events,
    };
  } finally {
    await fronts?.close().catch(() => undefined);
    await app.close();
    await sw.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
