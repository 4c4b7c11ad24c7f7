/**
 * Seed 003's incident in the lab: a site whose session resumption breaks, fed to tlsrum's real
 * collector (embedded store) and its alert engine (collector/src/alerts). One hostname, two lab
 * servers: a week's baseline of warm visits to `a.t13-h2.lab.test` served by the TLS 1.3 server with
 * tickets (resumes), then the current hour's visits to the same hostname served by the one with tickets
 * and session cache off (never resumes) — "a deploy turned resumption off". Each client is one browser
 * profile with its own client token. The baseline records are the lab's real records with their `ts`
 * moved one week back (the alert compares the last hour with the same hour a week earlier), submitted
 * to the collector's ingest pipeline; the current ones go through its ingest endpoint.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '@tlsrum/collector';
import { loadConfig } from '@tlsrum/collector/config';
import type { HandshakeRecord } from '@tlsrum/shared';
import type { AlertEvaluator } from '@tlsrum/collector/alerts/evaluator';
import type { RunningLab } from '../lab/lab';
import type { RttProfile } from '../lab/profiles';
import { hostOf } from '../lab/servers';
import { sendRecords, toBatches } from '@tlsrum/synth/collector-client';
import { runVisits } from './lab-runs';

const WEEK_MS = 7 * 86_400_000;
const ADMIN_TOKEN = 'seeds-admin-token-0123456789';

export interface AlertRun {
  site: string;
  clients: number;
  records: { baseline: number; current: number };
  /** Share of records with resumption known that resumed, per window. */
  resumedShare: { baseline: number | null; current: number | null };
  thresholds: { alpha: number; minSamples: number; minClients: number; shareDrop: number; p75Rise: number };
  /** Every check's verdict for the site's hour window. */
  checks: { check: string; status: string; current: number | null; baseline: number | null; pValue: number | null }[];
  /** What the engine would post to its webhook. */
  events: string[];
}

const share = (rs: HandshakeRecord[]) => {
  const known = rs.filter((r) => r.resumed !== null);
  return known.length ? known.filter((r) => r.resumed).length / known.length : null;
};

export async function resumptionAlertRun(
  lab: RunningLab,
  profile: RttProfile,
  o: { clients: number; runs: number; onProgress?: (l: string) => void },
): Promise<AlertRun> {
  const site = hostOf('a', 't13-h2');
  // A page with nothing but a same-origin image: every record of a visit belongs to the site.
  writeFileSync(
    join(lab.dir, 'www', 'p', 'seed-site.html'),
    '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>seed site</title><img src="/r/a.gif" alt="">\n',
  );
  const urlOn = (server: 't13-h2' | 't13-notix') => `https://${site}:${lab.ports[server]}/p/seed-site.html`;
  const windows: Record<'baseline' | 'current', HandshakeRecord[]> = { baseline: [], current: [] };
  for (const [w, server] of [
    ['baseline', 't13-h2'],
    ['current', 't13-notix'],
  ] as const) {
    for (let c = 0; c < o.clients; c++) {
      const { visits } = await runVisits(lab, {
        server,
        profile,
        mode: 'warm',
        runs: o.runs,
        url: urlOn(server),
        clientToken: `seed-${w}-client-${c}`,
      });
      windows[w].push(...visits.flatMap((v) => v.records));
    }
    o.onProgress?.(
      `alert run: ${w} window, ${windows[w].length} records from ${o.clients} clients (${server} serving ${site})`,
    );
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'tlsrum-seeds-collector-'));
  const minSamples = Math.max(10, Math.floor(0.8 * Math.min(windows.baseline.length, windows.current.length)));
  const config = loadConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN,
    // A lab run has a handful of clients and dozens of records, not a site's thousands.
    MIN_CLIENTS_PER_CELL: String(o.clients),
    ALERT_MIN_SAMPLES: String(minSamples),
    ALERT_INTERVAL_MS: '0',
    ALERT_WINDOWS: 'hour',
    ALERT_SOURCE: 'synthetic',
  });
  const app = await buildApp(config);
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
    const now = Date.now();
    const collector = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const agent = { name: 'tlsrum-seeds', version: '1' };
    // The current window through the real endpoint. The baseline a week back cannot go that way (the
    // endpoint refuses a ts more than 24 h off its clock): the same row conversion, inserted directly.
    await sendRecords(windows.current, { collector, agent });
    await app.ingest.flush();
    // (Through the ingest pipeline, as the endpoint does: a direct insert on the store's ingest client
    // would reuse the session's last deduplication token and be dropped as a duplicate.) The batch was
    // sent a week ago too: its sentAt bounds its records' timestamps.
    const origin = { country: '', receivedAt: now - WEEK_MS, isRegisteredSite: (h: string) => app.sites.has(h) };
    for (const batch of toBatches(
      windows.baseline.map((r) => ({ ...r, ts: r.ts - WEEK_MS })),
      agent,
    )) {
      await app.ingest.submit({ ...batch, sentAt: batch.sentAt - WEEK_MS }, origin);
    }
    await app.ingest.flush();
    const events: string[] = [];
    // The alerts plugin decorates the app; its type augmentation is not part of the package's exports.
    const { alerts } = app as unknown as { alerts: AlertEvaluator };
    const states = await alerts.evaluate(now);
    for (const s of states.filter((x) => x.site === site && x.status === 'firing')) events.push(`FIRING — ${s.check}`);
    const t = config.alerts.thresholds;
    return {
      site,
      clients: o.clients,
      records: { baseline: windows.baseline.length, current: windows.current.length },
      resumedShare: { baseline: share(windows.baseline), current: share(windows.current) },
      thresholds: {
        alpha: t.alpha,
        minSamples: t.minSamples,
        minClients: t.minClients,
        shareDrop: t.shareDrop,
        p75Rise: t.p75Rise,
      },
      checks: states
        .filter((x) => x.site === site)
        .map((x) => ({ check: x.check, status: x.status, current: x.current, baseline: x.baseline, pValue: x.pValue })),
      events,
    };
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
