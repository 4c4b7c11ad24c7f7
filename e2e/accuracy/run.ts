/**
 * Runs the accuracy matrix: RTT profile × cold/warm × every lab server × browser (Chromium, Firefox ESR)
 * through the synthetic runner, and turns every new TLS connection into samples joined to the servers'
 * and the proxy's logs (in Chromium also the `rum` arm: the extension's rules on the same entry); then,
 * when asked, the real extension in each browser (extension-arm.ts).
 */
import {
  classificationFields,
  classifyHandshake,
  historyKey,
  profileClaims,
  tlsFromServerTiming,
  type SiteProfile,
} from '@tlsrum/shared/classify';
import type { RunningLab } from '../lab/lab';
import type { RttProfile } from '../lab/profiles';
import { labProfiles, probeLabSites } from '../lab/site-profiles';
import { serverOfHost, SERVERS, type ServerId } from '../lab/servers';
import { labPath, type LabPath } from '../lab/synth-options';
import { runSynthetic, type VisitResult } from '@tlsrum/synth';
import { joinExtensionRows, runExtensionArm } from './extension-arm';
import { joinBeaconRows, runBeaconArm, type BeaconArmCounts } from './beacon-arm';
import { claimedCryptoOf, cryptoTruthOf } from './crypto-score';
import { claimedOfRecord, derivationWithTiming, expectedOf, type Arm, type Sample } from './samples';
import { connectionId, h3Truth, parseLabConn, ProxyLog, readTruth } from './truth';

export interface MatrixOptions {
  profiles: RttProfile[];
  modes: ('cold' | 'warm')[];
  servers: ServerId[];
  /** Visits per URL and mode (warm adds one priming visit). */
  runs: number;
  /** Browsers of the synthetic arm's TCP servers (default Chromium only). */
  browsers?: Browser[];
  /** The synthetic arm's HTTP/3 cells (when `servers` has h3): browsers and runs (default: `browsers`, `runs`). */
  h3?: { browsers: Browser[]; runs: number };
  /** The real-extension arm: its browsers, runs and TCP servers (none: not run). */
  extension?: { browsers: Browser[]; runs: number; servers: ServerId[]; rebuild?: boolean };
  /** The crypto-lens servers' cells (none: not run). */
  crypto?: CryptoCells;
  /** The site-beacon arm: browsers, servers (h3: launches of its own), visitors and views per server (none: not run). */
  beacon?: BeaconCells;
  onProgress?: (line: string) => void;
}

/** The site-beacon arm's cells (beacon-arm.ts): on the main matrix's profiles. */
export interface BeaconCells {
  browsers: Browser[];
  servers: ServerId[];
  visitors: number;
  rounds: number;
}

/** Cells of their own for the crypto-lens servers: fewer profiles, modes and runs than the main matrix. */
export interface CryptoCells {
  servers: ServerId[];
  profiles: RttProfile[];
  modes: ('cold' | 'warm')[];
  runs: number;
  browsers: Browser[];
}

export interface RawVisit {
  profile: RttProfile;
  mode: 'cold' | 'warm';
  visit: VisitResult;
}

export interface MatrixResult {
  samples: Sample[];
  /** Connections seen by the browser that could not be joined to a server log line, with why. */
  unjoined: { arm: Arm; server: string; host: string; why: string }[];
  /** Entries not measured: opaque (cross-origin without Timing-Allow-Origin) and reused, per arm. */
  counts: { opaque: number; reused: number; failedVisits: number; visits: number };
  errors: string[];
  /** Chromium's version (the synthetic arm's first browser). */
  browserVersion: string;
  browserVersions: Partial<Record<Browser, string>>;
  /** How the extension arm went: records the collector stored, joined or not. */
  extension?: { records: number; joined: number; visits: number; failedVisits: number };
  /** How the beacon arm went: views, beacons forwarded and refused, records stored and joined, identities. */
  beacon?: BeaconArmCounts;
  /** The lab sites' profiles as probed before the visits (both arms classify with them). */
  siteProfiles?: Record<string, SiteProfile>;
}

export type Browser = 'chromium' | 'firefox';

export async function runMatrix(lab: RunningLab, o: MatrixOptions): Promise<MatrixResult> {
  const raw: RawVisit[] = [];
  const errors: string[] = [];
  const browserVersions: MatrixResult['browserVersions'] = {};
  // The lab sites are registered and probed before any visit, as a collector would have them.
  const probes = await probeLabSites(lab, o.servers);
  for (const p of probes)
    if (p.outcome.result.errors.length) errors.push(`probe ${p.host}: ${p.outcome.result.errors.join('; ')}`);
  const profiles = labProfiles(probes);
  o.onProgress?.(`probed ${probes.length} lab hostnames for their site profiles`);
  const tcpBrowsers = o.browsers ?? ['chromium'];
  const h3 = o.h3 ?? { browsers: tcpBrowsers, runs: o.runs };
  for (const browser of [...new Set([...tcpBrowsers, ...h3.browsers])])
    for (const profile of o.profiles) {
      for (const mode of o.modes) {
        const tcpServers = o.servers.filter((s) => s !== 'h3');
        const batches: { urls: string[]; runs: number; path: LabPath }[] = [];
        if (tcpServers.length && tcpBrowsers.includes(browser))
          batches.push({ urls: tcpServers.map((s) => lab.urls[s]), runs: o.runs, path: labPath(lab, profile, 'tcp') });
        if (o.servers.includes('h3') && lab.udp[profile.name] && h3.browsers.includes(browser))
          batches.push({ urls: [lab.urls.h3], runs: h3.runs, path: labPath(lab, profile, 'quic') });
        for (const b of batches) {
          const t0 = Date.now();
          const result = await runSynthetic({
            urls: b.urls,
            browser,
            mode,
            runs: b.runs,
            ...b.path,
            visitTimeoutMs: 20_000,
          });
          browserVersions[browser] = result.browser.version;
          for (const v of result.visits) {
            raw.push({ profile, mode, visit: v });
            if (!v.ok) errors.push(`${profile.name} ${mode} ${v.url}: ${v.error}`);
          }
          o.onProgress?.(
            `${browser.padEnd(8)} ${profile.name.padEnd(16)} ${mode.padEnd(4)} ${b.urls.length} url(s) ${result.visits.length} visits in ${Date.now() - t0} ms`,
          );
        }
      }
    }
  if (o.crypto?.servers.length) {
    const c = o.crypto;
    for (const browser of c.browsers)
      for (const profile of c.profiles)
        for (const mode of c.modes) {
          const t0 = Date.now();
          let visits = 0;
          // One pass over the servers per run, each pass starting one server later: the first visit after
          // other work runs slower, and the effect table compares the servers with each other.
          for (let run = 0; run < c.runs; run++) {
            const order = c.servers.map(
              (_, i) => c.servers[(i + run + c.profiles.indexOf(profile)) % c.servers.length]!,
            );
            const result = await runSynthetic({
              urls: order.map((s) => lab.urls[s]),
              browser,
              mode,
              runs: 1,
              ...labPath(lab, profile, 'tcp'),
              visitTimeoutMs: 20_000,
            });
            browserVersions[browser] ??= result.browser.version;
            visits += result.visits.length;
            for (const v of result.visits) {
              raw.push({ profile, mode, visit: v });
              if (!v.ok) errors.push(`${profile.name} ${mode} ${v.url}: ${v.error}`);
            }
          }
          o.onProgress?.(
            `${browser.padEnd(8)} ${profile.name.padEnd(16)} ${mode.padEnd(4)} crypto: ${c.servers.length} url(s) ${visits} visits in ${Date.now() - t0} ms`,
          );
        }
  }
  const ext =
    o.extension?.browsers.length && o.extension.servers.length
      ? await runExtensionArm(lab, {
          ...o.extension,
          probes,
          profiles: o.profiles,
          modes: o.modes,
          ...(o.onProgress ? { onProgress: o.onProgress } : {}),
        })
      : null;
  const beacon =
    o.beacon?.browsers.length && o.beacon.servers.length
      ? await runBeaconArm(lab, {
          ...o.beacon,
          probes,
          profiles: o.profiles,
          ...(o.onProgress ? { onProgress: o.onProgress } : {}),
        })
      : null;
  // Servers log a connection when it closes (stream) or per request: wait for idle connections to close.
  await new Promise((r) => setTimeout(r, 2500));
  const chromiumMajor = Number(/(\d+)\./.exec(browserVersions.chromium ?? '')?.[1] ?? 0);
  const joined = joinVisits(raw, lab, errors, { profiles, chromiumMajor });
  if (ext) {
    Object.assign(
      browserVersions,
      Object.fromEntries(Object.entries(ext.browserVersions).filter(([b]) => !browserVersions[b as Browser])),
    );
    const e = joinExtensionRows(ext, lab);
    joined.samples.push(...e.samples);
    joined.unjoined.push(...e.unjoined);
    joined.counts.visits += ext.visits.length;
    joined.counts.failedVisits += e.failedVisits;
    for (const v of ext.visits)
      if (v.error) errors.push(`extension ${v.browser} ${v.profile.name} ${v.mode} ${v.server}: ${v.error}`);
    joined.extension = {
      records: ext.rows.length,
      joined: e.samples.length,
      visits: ext.visits.length,
      failedVisits: e.failedVisits,
    };
  }
  if (beacon) {
    for (const [b, v] of Object.entries(beacon.browserVersions)) browserVersions[b as Browser] ??= v;
    const j = joinBeaconRows(beacon, lab);
    joined.samples.push(...j.samples);
    joined.unjoined.push(...j.unjoined);
    joined.counts.visits += j.counts.views;
    joined.counts.failedVisits += j.counts.failedViews;
    for (const v of beacon.views)
      if (v.error) errors.push(`beacon ${v.browser} ${v.profile.name} ${v.server} visitor ${v.visitor}: ${v.error}`);
    joined.beacon = j.counts;
  }
  return {
    ...joined,
    browserVersion: browserVersions.chromium ?? '',
    browserVersions,
    siteProfiles: Object.fromEntries(profiles),
  };
}

/** What the rum arm classifies with besides the entry: the lab sites' profiles (every lab host is registered). */
export interface RumContext {
  profiles: ReadonlyMap<string, SiteProfile>;
  chromiumMajor: number;
}

export function joinVisits(
  raw: RawVisit[],
  lab: { logs: { dir: string; proxy: string }; crypto?: { chainBytes: Partial<Record<ServerId, number>> } },
  errors: string[] = [],
  rumContext: RumContext | null = null,
): Omit<MatrixResult, 'browserVersion' | 'browserVersions'> {
  const truth = readTruth(lab.logs.dir);
  const proxy = new ProxyLog(lab.logs.proxy);
  const samples: Sample[] = [];
  const unjoined: MatrixResult['unjoined'] = [];
  const counts = { opaque: 0, reused: 0, failedVisits: 0, visits: raw.length };
  // The RUM arm's history, as the extension keeps it: when this browser profile last completed a
  // handshake with each host under each page's hostname (sessions are partitioned by top-level site).
  const lastHandshake = new Map<string, number>();
  let session = '';
  for (const { profile, mode, visit } of raw) {
    if (!visit.ok) counts.failedVisits++;
    const sessionKey = `${visit.browser}|${profile.name}|${mode}|${visit.url}`;
    if (sessionKey !== session || mode === 'cold') lastHandshake.clear();
    session = sessionKey;
    for (const c of visit.connections) {
      if (c.kind === 'opaque') counts.opaque++;
      if (c.kind === 'reused') counts.reused++;
      if (c.kind !== 'new') continue;
      const where = serverOfHost(c.host);
      if (!where) {
        unjoined.push({ arm: 'synthetic', server: '?', host: c.host, why: 'not a lab host' });
        continue;
      }
      const serverId = where.server.id;
      const lc = parseLabConn(c.responseHeaders['x-lab-conn']);
      const t = lc ? truth.lookup(serverId, lc, c.connectStartEpochMs) : null;
      if (!lc || !t) {
        unjoined.push({
          arm: 'synthetic',
          server: serverId,
          host: c.host,
          why: lc ? `no server log line for ${lc.addr}:${lc.port}` : 'no X-Lab-Conn header',
        });
        continue;
      }
      const proxyLine = proxy.lookup(serverId === 'h3' ? 'udp' : 'tcp', lc.addr, lc.port, c.connectStartEpochMs);
      const truthH3 = h3Truth(t, proxyLine, typeof c.netlog?.isResumed === 'boolean' ? c.netlog.isResumed : null);
      const expected = expectedOf(truthH3, visit.browser);
      const base = {
        browser: visit.browser,
        mode,
        prime: visit.prime,
        profile: profile.name,
        rttMs: profile.rttMs,
        server: serverId,
        host: c.host,
        entryType: c.entryType,
        connection: connectionId(t),
        truth: truthH3,
        expected,
        proxy: proxyLine,
        cryptoTruth: cryptoTruthOf(where.server, truthH3, lab.crypto?.chainBytes[serverId] ?? null),
      };
      if (c.record) {
        const claimed = claimedOfRecord(
          c.record,
          derivationWithTiming(c.record.handshakeClass, classifyHandshake({ timing: c.timing })),
        );
        samples.push({ ...base, arm: 'synthetic', claimed, cryptoClaimed: claimedCryptoOf(c.record) });
      }
      // The `rum` arm replays the extension's Chromium rules; in Firefox the extension arm is the real thing.
      if (visit.browser !== 'chromium') continue;
      const key = historyKey(new URL(visit.url).hostname, c.host);
      const since = lastHandshake.get(key);
      const siteProfile = rumContext?.profiles.get(c.host) ?? null;
      const rum = classifyHandshake({
        timing: c.timing,
        security: tlsFromServerTiming(c.serverTiming),
        history: {
          msSincePriorHandshake: since != null ? Math.max(0, c.connectStartEpochMs - since) : null,
          tracked: true,
        },
        profile: profileClaims(siteProfile, 'chromium', rumContext?.chromiumMajor ?? 0),
      });
      samples.push({ ...base, arm: 'rum', claimed: claimedOfRecord(classificationFields(rum), rum) });
      lastHandshake.set(key, c.connectStartEpochMs + (c.timing.connectEnd - c.timing.connectStart));
    }
  }
  return { samples, unjoined, counts, errors };
}

/** The main matrix's servers; the crypto-lens servers have cells of their own (CryptoCells). */
export const ALL_SERVERS: ServerId[] = SERVERS.filter((s) => !s.crypto).map((s) => s.id);
