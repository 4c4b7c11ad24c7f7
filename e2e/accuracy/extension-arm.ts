/**
 * The real-extension arm: the built extension (extension/dist/<browser>) in Chromium and Firefox ESR,
 * opted in the way a user does (options page + "I agree"), pointed at the real collector (in-process,
 * embedded store in a temporary folder). Every lab host is registered as a site, so the records the
 * collector stores carry their hostname in `site` — the only per-connection identity a record has (no
 * URL, path, port or address).
 *
 * Join: visits run one at a time and every visit opens one connection per origin (pages.ts), so a
 * record is placed in the visit whose time window holds its `ts` (the entry's start), and joined to
 * the one connection the profile's delaying proxy opened to the record's host inside that window
 * (proxy log: host, source address, upstream port), then to the server's log line for that upstream
 * port (truth.ts). No connection or more than one in the window: not joined, with the reason.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HandshakeRecord } from '@tlsrum/shared';
import { classifyHandshake } from '@tlsrum/shared/classify';
import { buildAll } from '../../extension/scripts/build';
import { extensionPage, launch, type BrowserName, type LaunchedBrowser } from '../../extension/test/support/browsers';
import { startCollector } from '../../extension/test/support/collector';
import { optIn, readStorage, sendNow } from '../../extension/test/support/pages';
import type { RunningLab } from '../lab/lab';
import type { RttProfile } from '../lab/profiles';
import { hostOf, ORIGIN_PREFIXES, serverOfHost, type ServerId } from '../lab/servers';
import type { MatrixResult } from './run';
import { claimedOfRecord, expectedOf, type Sample } from './samples';
import { connectionId, ProxyLog, readTruth } from './truth';

const EXTENSION_DIST = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'extension', 'dist');
/** Entries a lab page yields: the navigation, the same-origin image, the b. and the c. image. */
const ENTRIES_PER_VISIT = 4;
/** Interval polling for the extension pages' waits (see optIn: rAF waits hung here). */
const POLL_MS = 100;

export interface ExtensionArmOptions {
  browsers: BrowserName[];
  profiles: RttProfile[];
  modes: ('cold' | 'warm')[];
  /** TCP servers only: the extension arm does not run HTTP/3 (see the report). */
  servers: ServerId[];
  runs: number;
  /**
   * false: build only when dist/<browser> is missing — inside `pnpm test` the extension project's
   * global setup has built it, and rewriting it would race the extension's own browser tests.
   */
  rebuild?: boolean;
  onProgress?: (line: string) => void;
}

export interface ExtensionVisit {
  browser: BrowserName;
  profile: RttProfile;
  mode: 'cold' | 'warm';
  server: ServerId;
  prime: boolean;
  start: number;
  end: number;
  /** Entries the extension counted during the visit (measured, opaque, reused, skipped). */
  counted: number;
  error?: string;
}

export interface ExtensionArmResult {
  visits: ExtensionVisit[];
  /** The rows the collector stored (as it returns them: ts is a UTC date-time string). */
  rows: Record<string, unknown>[];
  browserVersions: Partial<Record<BrowserName, string>>;
}

/** Runs the visits and returns what the collector stored. */
export async function runExtensionArm(lab: RunningLab, o: ExtensionArmOptions): Promise<ExtensionArmResult> {
  if (o.rebuild !== false || o.browsers.some((b) => !existsSync(join(EXTENSION_DIST, b, 'manifest.json')))) await buildAll();
  const collector = await startCollector();
  const visits: ExtensionVisit[] = [];
  const browserVersions: ExtensionArmResult['browserVersions'] = {};
  const hosts = o.servers.flatMap((s) => ORIGIN_PREFIXES.map((p) => hostOf(p, s)));
  try {
    for (const h of hosts) await collector.registerSite(h);
    for (const name of o.browsers) {
      for (const profile of o.profiles) {
        for (const mode of o.modes) {
          // Cold: a fresh profile per run, each server visited once (its first contact: a full handshake).
          // Warm: one profile, a priming round, then `runs` rounds; the other servers' visits in between
          // outlast nginx's 1 s keep-alive, so each visit opens new connections that may resume.
          const launches = mode === 'cold' ? Array.from({ length: o.runs }, () => [false]) : [[true, ...Array.from({ length: o.runs }, () => false)]];
          for (const rounds of launches) {
            const t0 = Date.now();
            const dir = mkdtempSync(join(tmpdir(), `tlsrum-accuracy-ext-${name}-`));
            let b: LaunchedBrowser | null = null;
            let counts = '';
            let step = 'launch';
            try {
              b = await launch(name, {
                profileDir: join(dir, 'profile'),
                certs: { dir: lab.ca.dir, caPem: lab.ca.caCert, spki: [lab.ca.leafSpki], keyOf: () => lab.ca.leafKey, certOf: () => lab.ca.leafCert },
                hosts,
                extensionDir: join(EXTENSION_DIST, name),
                socksPort: lab.socks[profile.name],
              });
              browserVersions[name] = await b.browser.version();
              step = 'opt-in';
              await optIn(b, collector.url, POLL_MS);
              step = 'popup';
              const ext = await extensionPage(b, 'popup/index.html');
              step = 'visits';
              for (const prime of rounds) {
                for (const server of o.servers) visits.push(await visitOnce(b, ext, lab.urls[server], { browser: name, profile, mode, server, prime }));
                if (o.servers.length === 1) await new Promise((r) => setTimeout(r, 1_500));
              }
              step = 'send';
              counts = JSON.stringify((await readStorage(ext)).counts ?? {});
              // Everything waiting goes to the collector now (the outbox sends in batches of ≤ 200).
              for (let i = 0; i < 10 && (await sendNow(b, POLL_MS)) !== 'Sent 0.'; i++);
            } catch (e) {
              visits.push({ browser: name, profile, mode, server: o.servers[0]!, prime: false, start: t0, end: Date.now(), counted: 0, error: `${step}: ${e instanceof Error ? e.message.split('\n')[0]! : String(e)}` });
            } finally {
              await b?.close().catch(() => undefined);
              rmSync(dir, { recursive: true, force: true });
            }
            o.onProgress?.(`extension ${name.padEnd(8)} ${profile.name.padEnd(16)} ${mode.padEnd(4)} ${rounds.length * o.servers.length} visits in ${Date.now() - t0} ms; extension counted ${counts} (per visit: ${visits.slice(-rounds.length * o.servers.length).map((v) => v.counted).join(',')})`);
          }
        }
      }
    }
    return { visits, rows: await collector.rows(), browserVersions };
  } finally {
    await collector.close().catch(() => undefined);
  }
}

type Meta = Omit<ExtensionVisit, 'start' | 'end' | 'error' | 'counted'>;

/**
 * One visit in a new tab, until the extension has counted the page's entries (or 5 s: its content
 * script reports in idle time, at the latest 3 s after the entries; Firefox sometimes never reports
 * the navigation entry, see the report).
 */
async function visitOnce(b: LaunchedBrowser, ext: Awaited<ReturnType<typeof extensionPage>>, url: string, meta: Meta): Promise<ExtensionVisit> {
  const counted = async () => {
    const c = (await readStorage(ext)).counts;
    return c ? c.measured + c.opaque + c.reused + c.skipped : 0;
  };
  const before = await counted();
  const start = Date.now();
  const tab = await b.browser.newPage();
  let error: string | undefined;
  try {
    await tab.goto(url, { waitUntil: 'load', timeout: 20_000 });
    const deadline = Date.now() + 5_000;
    while ((await counted()) < before + ENTRIES_PER_VISIT && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  } catch (e) {
    error = e instanceof Error ? e.message.split('\n')[0] : String(e);
  } finally {
    await tab.close().catch(() => undefined);
  }
  return { ...meta, start, end: Date.now(), counted: (await counted()) - before, ...(error ? { error } : {}) };
}

const epochOf = (ts: unknown) => (typeof ts === 'number' ? ts : Date.parse(`${String(ts).replace(' ', 'T')}Z`));

/** Joins the collector's rows to the visits, the proxy's connections and the servers' log lines. */
export function joinExtensionRows(arm: ExtensionArmResult, lab: { logs: { dir: string; proxy: string } }): Pick<MatrixResult, 'samples' | 'unjoined'> & { failedVisits: number } {
  const truth = readTruth(lab.logs.dir);
  const proxy = new ProxyLog(lab.logs.proxy);
  const samples: Sample[] = [];
  const unjoined: MatrixResult['unjoined'] = [];
  for (const row of arm.rows) {
    const r = row as unknown as HandshakeRecord & { site: string };
    const ts = epochOf(row.ts);
    const host = r.site;
    const where = serverOfHost(host);
    const v = arm.visits.find((x) => !x.error && ts >= x.start && ts <= x.end);
    if (!where || !v) {
      unjoined.push({ arm: 'extension', server: where?.server.id ?? '?', host: host || '(no site)', why: where ? 'no visit window holds its ts' : 'not a lab host' });
      continue;
    }
    const opened = proxy.opened(v.profile.sourceAddress, host, v.start, v.end);
    if (opened.length !== 1) {
      unjoined.push({ arm: 'extension', server: where.server.id, host, why: `${opened.length} proxy connections to the host in the visit window` });
      continue;
    }
    const p = opened[0]!;
    const t = truth.lookup(where.server.id, { addr: p.source, port: p.upstreamLocalPort!, conn: null }, p.t);
    if (!t) {
      unjoined.push({ arm: 'extension', server: where.server.id, host, why: `no server log line for ${p.source}:${p.upstreamLocalPort}` });
      continue;
    }
    samples.push({
      arm: 'extension',
      browser: v.browser,
      mode: v.mode,
      prime: v.prime,
      profile: v.profile.name,
      rttMs: v.profile.rttMs,
      server: where.server.id,
      host,
      entryType: r.entryType,
      connection: connectionId(t),
      truth: t,
      expected: expectedOf(t, where.server.alpn === null, null),
      claimed: claimedOfRecord(r, unknownReasonOf(r)),
      proxy: p,
    });
  }
  return { samples, unjoined, failedVisits: arm.visits.filter((v) => v.error).length };
}

/** The record keeps phases, not the entry: the classifier's reason for `unknown` is re-derived from them. */
function unknownReasonOf(r: HandshakeRecord): string | undefined {
  if (r.handshakeClass !== 'unknown') return undefined;
  const connectEnd = r.dns + r.tcp + r.tls;
  return classifyHandshake({
    timing: { entryType: r.entryType, nextHopProtocol: r.protocol, startTime: 0, fetchStart: 0, domainLookupStart: 0, domainLookupEnd: r.dns, connectStart: r.dns, secureConnectionStart: r.dns + r.tcp, connectEnd, requestStart: connectEnd, responseStart: connectEnd + r.ttfb },
  }).unknownReason;
}
