/**
 * Firefox ESR through puppeteer-core's WebDriver BiDi. Phases come from Navigation/Resource Timing
 * (timer precision reduction off, so sub-millisecond); TLS details from the helper add-on's
 * webRequest.getSecurityInfo (firefox-helper.ts): version, cipher suite, key exchange group and
 * signature scheme are `observed`. Firefox reports no resumption flag: a TLS 1.2 session resumed by
 * ticket is recognised by its missing key exchange group (the shared classifier's rule); TLS 1.3
 * resumption looks like a full handshake: when the same profile completed a handshake with the same
 * origin earlier, the shared classifier's history rule calls it resumed, `inferred` (not a fact: the
 * server may refuse the ticket); otherwise `unknown`.
 *
 * Cold visits each get a new user context (BiDi `browser.createUserContext`: its own connections and
 * TLS session cache, both keyed by origin attributes). Warm visits share one; Firefox has no call that
 * closes its connections, so the profile's idle timeouts are set to 1 s and each warm visit waits
 * until they have passed, then opens new connections that may resume the previous session.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type BrowserContext } from 'puppeteer-core';
import {
  connectionKindOf,
  type ConnectionKind,
  type HandshakeHistory,
  type SecurityInfo,
} from '@tlsrum/shared/classify';
import { certFacts } from './cert-facts';
import { startSecuritySink, writeHelperAddon, type FirefoxSecurityReport, type SecuritySink } from './firefox-helper';
import { tlsVersionOf } from './names';
import type { NormalizedOptions } from './options';
import {
  connectStartEpochMsOf,
  ENLARGE_RESOURCE_BUFFER,
  observeEntry,
  readPageEntries,
  type PageEntry,
} from './page-entries';
import { majorOf, osOfPlatform, type RecordEnv } from './records';
import { describeNavigationError } from './errors';
import { firefoxExceptionsFor, trustCaInNssDb } from './nss';
import { siteOf } from './site';
import type { ConnectionObservation, VisitResult } from './types';

/** Longer than the 1 s idle timeouts set below, with room for Firefox's pruning timer. */
export const WARM_IDLE_WAIT_MS = 2_500;

/** `bypassProxy`: host:port reached directly even with a proxy set (the helper add-on's sink). */
export function firefoxPrefs(o: NormalizedOptions, bypassProxy?: string): Record<string, unknown> {
  const prefs: Record<string, unknown> = {
    // Sub-millisecond timings (the default clamps them to whole milliseconds or coarser).
    'privacy.reduceTimerPrecision': false,
    // Every visit goes to the network; nothing is opened speculatively.
    'browser.cache.disk.enable': false,
    'browser.cache.memory.enable': false,
    'network.http.speculative-parallel-limit': 0,
    'network.predictor.enabled': false,
    'network.dns.disablePrefetch': true,
    'network.prefetch-next': false,
    // Idle connections close after 1 s (HTTP/1.1, HTTP/2): warm visits then need new ones.
    'network.http.keep-alive.timeout': 1,
    'network.http.http2.timeout': 1,
    'network.http.spdy.timeout': 1,
    // No DNS over HTTPS: names resolve as the options say.
    'network.trr.mode': 5,
  };
  const addresses = [...new Set(Object.values(o.hostResolver))];
  if (addresses.length === 1 && (o.blockOtherHosts || Object.keys(o.hostResolver).some((p) => p.startsWith('*.')))) {
    // Firefox has no per-pattern mapping: every name resolves to the one address (others are unreachable anyway).
    prefs['network.dns.forceResolve'] = addresses[0];
  } else if (Object.keys(o.hostResolver).length) {
    const exact = Object.keys(o.hostResolver).filter((p) => !p.startsWith('*.'));
    const fromUrls = o.urls
      .map((u) => new URL(u).hostname)
      .filter((h) => Object.keys(o.hostResolver).some((p) => p.startsWith('*.') && h.endsWith(p.slice(1))));
    // network.dns.localDomains resolves the listed names to loopback.
    prefs['network.dns.localDomains'] = [...new Set([...exact, ...fromUrls])].join(',');
  }
  if (o.proxy) {
    const u = new URL(o.proxy);
    Object.assign(prefs, {
      'network.proxy.type': 1,
      'network.proxy.socks': u.hostname.replace(/^\[|\]$/g, ''),
      'network.proxy.socks_port': Number(u.port),
      'network.proxy.socks_version': 5,
      'network.proxy.socks_remote_dns': true,
      // Only the helper's sink on loopback bypasses the proxy: without it, the add-on's reports went to
      // the SOCKS proxy (which refuses hosts it does not know) and every record lost its TLS details.
      'network.proxy.no_proxies_on': bypassProxy ?? '',
      'network.proxy.allow_hijacking_localhost': true,
    });
  }
  if (o.h3Origins.length) {
    prefs['network.http.http3.enable'] = true;
    // Without it Firefox first opens a TCP connection to the mapped origin and only then races QUIC: the
    // lab's QUIC relays listen on UDP only, so that connection is refused and the visit fails.
    prefs['network.http.http3.force-use-alt-svc-mapping-for-testing'] = true;
    // A private CA added to the profile counts as a "third-party root", which turns HTTP/3 off.
    prefs['network.http.http3.disable_when_third_party_roots_found'] = false;
    // Idle QUIC connections close after 1 s, as HTTP/1.1 and HTTP/2 ones do: warm visits need new ones.
    prefs['network.http.http3.idle_timeout'] = 1;
    prefs['network.http.http3.alt-svc-mapping-for-testing'] = o.h3Origins
      .map((origin) => {
        const [host, port] = origin.split(':');
        return `${host};h3=:${port}`;
      })
      .join(',');
  }
  return prefs;
}

export async function firefoxRun(o: NormalizedOptions, emit: (v: VisitResult) => void): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-synth-ff-'));
  const profile = join(dir, 'profile');
  mkdirSync(profile);
  let sink: SecuritySink | null = null;
  let browser: Browser | null = null;
  try {
    if (o.caCertPath) {
      trustCaInNssDb(profile, o.caCertPath);
      firefoxExceptionsFor(profile, o.caCertPath, o.urls);
    }
    sink = await startSecuritySink();
    const addon = writeHelperAddon(join(dir, 'addon'), sink.url);
    browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: o.executablePath,
      headless: true,
      userDataDir: profile,
      extraPrefsFirefox: firefoxPrefs(o, new URL(sink.url).host),
      timeout: 60_000,
    });
    await browser.installExtension(addon);
    const version = await browser.version();
    const env: RecordEnv = {
      browser: 'firefox',
      browserMajor: majorOf(version),
      os: osOfPlatform(),
      clientToken: o.clientToken,
    };
    for (const url of o.urls) {
      if (o.mode === 'cold') {
        for (let run = 0; run < o.runs; run++) {
          const context = await browser.createBrowserContext();
          try {
            emit(await visit(context, new Map(), sink, url, run, false, o, env));
          } finally {
            await context.close().catch(() => {});
          }
        }
      } else {
        const context = await browser.createBrowserContext();
        const handshakes: Handshakes = new Map();
        try {
          emit(await visit(context, handshakes, sink, url, -1, true, o, env));
          for (let run = 0; run < o.runs; run++) {
            await new Promise((r) => setTimeout(r, WARM_IDLE_WAIT_MS));
            emit(await visit(context, handshakes, sink, url, run, false, o, env));
          }
        } finally {
          await context.close().catch(() => {});
        }
      }
    }
    return version;
  } finally {
    if (browser) await browser.close().catch(() => browser?.process()?.kill('SIGKILL'));
    await sink?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Per origin (host:port), epoch ms of the latest completed handshake in one user context. */
type Handshakes = Map<string, number>;

async function visit(
  context: BrowserContext,
  handshakes: Handshakes,
  sink: SecuritySink,
  url: string,
  run: number,
  prime: boolean,
  o: NormalizedOptions,
  env: RecordEnv,
): Promise<VisitResult> {
  const startedAt = Date.now();
  sink.drain();
  const page = await context.newPage();
  let error: string | undefined;
  let entries: PageEntry[] = [];
  const responses: Array<{ url: string; status: number; headers: Record<string, string> }> = [];
  page.on('response', (r) => {
    try {
      responses.push({
        url: r.url(),
        status: r.status(),
        headers: Object.fromEntries(Object.entries(r.headers()).map(([k, v]) => [k.toLowerCase(), String(v)])),
      });
    } catch {
      // Headers of a response whose page is gone: the connection is reported without them.
    }
  });
  try {
    await page.setCacheEnabled(false).catch(() => {});
    await page.evaluateOnNewDocument(ENLARGE_RESOURCE_BUFFER).catch(() => {});
    try {
      const response = await page.goto(url, { waitUntil: 'load', timeout: o.visitTimeoutMs });
      if (response && response.status() >= 400) error = `HTTP ${response.status()}`;
      await page.waitForNetworkIdle({ idleTime: 300, timeout: Math.min(5_000, o.visitTimeoutMs) }).catch(() => {});
      entries = await readPageEntries(page);
    } catch (err) {
      error = describeNavigationError(err);
    }
  } finally {
    await page.close().catch(() => {});
  }
  // The add-on reports asynchronously: wait (briefly) until every measurable entry has its report.
  const wanted = entries.filter((e) => connectionKindOf(e) === 'new').map((e) => e.url);
  await sink.waitFor((rs) => wanted.every((u) => rs.some((r) => r.url === u)), 3_000);
  const reports = sink.drain();

  const site = siteOf(url);
  const counts: Record<ConnectionKind, number> = { new: 0, reused: 0, opaque: 0, insecure: 0, invalid: 0 };
  const connections: ConnectionObservation[] = [];
  for (const entry of entries) {
    const kind = connectionKindOf(entry);
    counts[kind]++;
    const report = takeReport(reports, entry.url);
    const ri = responses.findIndex((r) => r.url === entry.url);
    const response = ri < 0 ? null : (responses.splice(ri, 1)[0] ?? null);
    const observed = securityOf(report);
    const connectStartEpochMs = connectStartEpochMsOf(entry);
    let history: HandshakeHistory | null = null;
    if (kind === 'new') {
      const u = new URL(entry.url);
      const origin = `${u.hostname}:${u.port || 443}`;
      const prior = handshakes.get(origin);
      if (prior !== undefined && prior <= connectStartEpochMs)
        history = { msSincePriorHandshake: connectStartEpochMs - prior };
      handshakes.set(origin, Math.max(prior ?? 0, entry.timeOrigin + entry.timing.connectEnd));
    }
    connections.push(
      observeEntry({
        entry,
        kind,
        site,
        env,
        response,
        observed,
        history,
        browserReport: { securityDetails: null, netlog: null, firefoxSecurityInfo: report?.info ?? null },
      }),
    );
  }
  if (!error && !entries.some((e) => e.timing.entryType === 'navigation'))
    error = 'the page has no navigation timing entry';
  // The idle timeouts set in the profile do not make Firefox drop a connection the server keeps alive
  // (seen with a 120 s keep-alive): a warm visit then reuses it and has no handshake to measure. Say so
  // instead of reporting an empty success.
  if (
    !error &&
    !prime &&
    o.mode === 'warm' &&
    connections.some((c) => c.entryType === 'navigation' && c.kind === 'reused')
  ) {
    error =
      'Firefox reused the previous visit’s connection (the server keeps idle connections open longer than the runner waits): no new handshake to measure';
  }
  return {
    url,
    host: new URL(url).hostname,
    browser: 'firefox',
    mode: o.mode,
    run,
    prime,
    ok: !error,
    ...(error ? { error } : {}),
    startedAt,
    records: connections.flatMap((c) => (c.record ? [c.record] : [])),
    connections,
    counts,
  };
}

function takeReport(reports: FirefoxSecurityReport[], url: string): FirefoxSecurityReport | null {
  const i = reports.findIndex((r) => r.url === url);
  return i < 0 ? null : (reports.splice(i, 1)[0] ?? null);
}

/** getSecurityInfo → SecurityInfo. It reports the key exchange group of every full handshake. */
export function securityOf(report: FirefoxSecurityReport | null): SecurityInfo | null {
  const info = report?.info;
  if (!info || info.state !== 'secure') return null;
  const s: SecurityInfo = { evidence: 'observed', reportsKeyExchange: true };
  const version = tlsVersionOf(typeof info.protocolVersion === 'string' ? info.protocolVersion : null);
  if (version) s.tlsVersion = version;
  if (typeof info.cipherSuite === 'string') s.cipher = info.cipherSuite;
  s.group = typeof info.keaGroupName === 'string' && info.keaGroupName ? info.keaGroupName : null;
  if (typeof info.signatureSchemeName === 'string') s.signatureScheme = info.signatureSchemeName;
  // The chain Firefox built, ending at the root: certFacts drops a self-issued last one (what was sent).
  // No ocspStapled: getSecurityInfo's usedOcsp means Firefox fetched OCSP itself, not a stapled response.
  Object.assign(
    s,
    certFacts(
      Array.isArray(info.certificateDers)
        ? info.certificateDers.filter((d): d is string => typeof d === 'string')
        : null,
      'built',
    ),
  );
  if (typeof info.usedEch === 'boolean') s.ech = info.usedEch;
  return s;
}
