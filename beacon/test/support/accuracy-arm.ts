/**
 * The browser side of the lab accuracy report's beacon arm (e2e/accuracy/beacon-arm.ts explains the
 * arm and its join): the lab pages with the served beacon's tag, viewed by several simulated visitors
 * in Chromium and Firefox ESR, each reaching the real collector (in-process, temporary chDB folder,
 * `TRUST_PROXY=1`) through its own front, which names the visitor's address in X-Forwarded-For.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '@tlsrum/collector';
import { loadConfig } from '@tlsrum/collector/config';
import { insertProbes } from '@tlsrum/collector/probes/store';
import type { BeaconArmOptions, BeaconArmResult } from '@tlsrum/e2e/accuracy/beacon-arm';
import { startBeaconFronts, visitorAddresses } from '@tlsrum/e2e/lab/beacon-front';
import type { RunningLab } from '@tlsrum/e2e/lab/lab';
import { beaconPagePath, writeBeaconPages } from '@tlsrum/e2e/lab/pages';
import { hostOf } from '@tlsrum/e2e/lab/servers';
import { runVisitors, type BeaconView } from './lab-visits';

const ADMIN = 'beacon-accuracy-arm-admin-token';

export async function runBeaconArm(lab: RunningLab, o: BeaconArmOptions): Promise<BeaconArmResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tlsrum-beacon-arm-'));
  const app = await buildApp(
    loadConfig({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      ADMIN_TOKEN: ADMIN,
      // The fronts are the one proxy in front of the collector: the client is their X-Forwarded-For entry.
      TRUST_PROXY: '1',
      // A cell is shown from as many distinct clients as the arm has visitors: one identity per visitor or nothing.
      MIN_CLIENTS_PER_CELL: String(o.visitors),
      PROBE_INTERVAL_MS: '0',
      // Every answer fresh: records are stored and asked about again at once.
      ANSWER_CACHE_SECONDS: '0',
      // No load shedding: the lab's browsers and servers share the machine and can lag the event loop past
      // any threshold; a beacon refused with 503 then would be the machine's doing, not the beacon's.
      MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
  );
  const addresses = visitorAddresses(o.visitors);
  let fronts: Awaited<ReturnType<typeof startBeaconFronts>> | null = null;
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    await app.storeStatus.whenReady;
    const admin = { authorization: `Bearer ${ADMIN}` };
    const register = async (url: string, hostname: string) => {
      let res = await app.inject({ method: 'POST', url, headers: admin, payload: { hostname } });
      // Under load the collector may shed a request with 503 right after start.
      for (let i = 0; i < 20 && res.statusCode === 503; i++) {
        await new Promise((r) => setTimeout(r, 500));
        res = await app.inject({ method: 'POST', url, headers: admin, payload: { hostname } });
      }
      if (res.statusCode !== 201) throw new Error(`${url} ${hostname}: ${res.statusCode} ${res.body}`);
    };
    // Each server's page host is a site; its `b.` host (the one with Server-Timing) the site's extra hostname.
    for (const s of o.servers) {
      await register('/v1/sites', hostOf('a', s));
      await register(`/v1/sites/${hostOf('a', s)}/probe-targets`, hostOf('b', s));
    }
    await app.sites.refresh();
    const probes = (o.probes ?? []).filter((p) => o.servers.some((s) => p.host === hostOf('a', s)));
    if (probes.length) {
      await insertProbes(
        app.store.query,
        probes.map((p) => ({ site: p.host, hostname: p.host, at: p.at, outcome: p.outcome })),
      );
      await app.profiles.refresh();
    }
    fronts = await startBeaconFronts({
      collector: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
      addresses,
      cert: lab.ca.leafCert,
      key: lab.ca.leafKey,
      // Firefox over HTTP/3 resolves every name to the profile's UDP relay address.
      listen: ['127.0.0.1', ...new Set(Object.values(lab.udp).map((a) => a.split(':')[0]!))],
    });
    writeBeaconPages(join(lab.dir, 'www'), lab.ports, o.servers, fronts.origins);
    const views: BeaconView[] = [];
    const browserVersions: BeaconArmResult['browserVersions'] = {};
    const visitors = Array.from({ length: o.visitors }, (_, i) => i);
    for (const browser of o.browsers)
      for (const profile of o.profiles) {
        const groups = [
          o.servers.filter((s) => s !== 'h3'),
          o.servers.includes('h3') && lab.udp[profile.name] ? ['h3' as const] : [],
        ].filter((g) => g.length);
        for (const servers of groups) {
          const t0 = Date.now();
          const run = await runVisitors(lab, fronts, {
            browser,
            profile,
            servers,
            visitors,
            rounds: o.rounds,
            urlOf: (s, v) => `https://${hostOf('a', s)}:${lab.ports[s]}${beaconPagePath(s, v)}`,
          });
          browserVersions[browser] ||= run.version;
          views.push(...run.views);
          o.onProgress?.(
            `beacon    ${browser.padEnd(8)} ${profile.name.padEnd(16)} ${servers.join(',')}: ${run.views.length} views by ${visitors.length} visitors in ${Date.now() - t0} ms; ${run.views.reduce((n, v) => n + v.beacons, 0)} beacons${run.views.some((v) => v.error) ? `; errors: ${run.views.filter((v) => v.error).length}` : ''}`,
          );
        }
      }
    await app.ingest.flush();
    const rs = await app.store.query.query({
      query: "SELECT * FROM handshakes WHERE source = 'page' ORDER BY ts",
      format: 'JSONEachRow',
    });
    const rows = await rs.json<Record<string, unknown>>();
    return {
      views: views.map(({ profile, ...v }) => ({ ...v, profile })),
      rows,
      captured: fronts.captured,
      addresses,
      browserVersions,
      minClientsPerCell: o.visitors,
    };
  } finally {
    await fronts?.close().catch(() => undefined);
    await app.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
