/**
 * The browser side of the lab accuracy report's real-extension arm (e2e/accuracy/extension-arm.ts
 * explains the arm and its join): the built extension in Chromium or Firefox ESR, opted in as a user
 * does, visiting the lab's pages through each RTT profile's delaying proxy, sending to the real
 * collector (in-process, temporary chDB folder). Lives here because it drives this package's test
 * support; e2e imports it by path at run time.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ExtensionArmOptions, ExtensionArmResult, ExtensionVisit } from '@tlsrum/e2e/accuracy/extension-arm';
import type { RunningLab } from '@tlsrum/e2e/lab/lab';
import { hostOf, ORIGIN_PREFIXES } from '@tlsrum/e2e/lab/servers';
import { buildAll } from '../../scripts/build';
import { extensionPage, launch, type LaunchedBrowser, type LaunchOptions } from './browsers';
import { startCollector } from './collector';
import { insertProbes } from '@tlsrum/collector/probes/store';
import { optIn, readStorage, sendNow } from './pages';
import { openSettleSession, settle } from '@tlsrum/synth/settle';

const EXTENSION_DIST = resolve(import.meta.dirname, '..', '..', 'dist');
/** Entries a lab page yields: the navigation, the same-origin image, the b. and the c. image. */
const ENTRIES_PER_VISIT = 4;
/** Interval polling for the extension pages' waits (see optIn: rAF waits hung here). */
const POLL_MS = 100;

/** Runs the visits and returns what the collector stored. */
export async function runExtensionArm(lab: RunningLab, o: ExtensionArmOptions): Promise<ExtensionArmResult> {
  if (o.rebuild !== false || o.browsers.some((b) => !existsSync(join(EXTENSION_DIST, b, 'manifest.json'))))
    await buildAll();
  const collector = await startCollector();
  const visits: ExtensionVisit[] = [];
  const browserVersions: ExtensionArmResult['browserVersions'] = {};
  const hosts = o.servers.flatMap((s) => ORIGIN_PREFIXES.map((p) => hostOf(p, s)));
  try {
    for (const h of hosts) await collector.registerSite(h);
    // The collector knows the lab sites' profiles before any browser asks for the site list.
    if (o.probes?.length) {
      await insertProbes(
        collector.app.store.query,
        o.probes.map((p) => ({ site: p.host, hostname: p.host, at: p.at, outcome: p.outcome })),
      );
      await collector.app.profiles.refresh();
    }
    for (const name of o.browsers) {
      for (const profile of o.profiles) {
        // HTTP/3 goes to the profile's UDP relay, not through its SOCKS proxy: launches of its own.
        const relay = lab.udp[profile.name];
        const groups = [
          o.servers.filter((s) => s !== 'h3'),
          relay && o.servers.includes('h3') ? ['h3' as const] : [],
        ].filter((g) => g.length);
        for (const servers of groups) {
          const quic =
            servers[0] === 'h3' && relay
              ? {
                  address: relay.split(':')[0]!,
                  port: lab.ports.h3,
                  hosts: ORIGIN_PREFIXES.map((p) => hostOf(p, 'h3')),
                }
              : undefined;
          for (const mode of o.modes) {
            // Cold: a fresh profile per run, each server visited once (its first contact: a full handshake).
            // Warm: one profile, a priming round, then `runs` rounds; the other servers' visits in between
            // outlast nginx's 1 s keep-alive, so each visit opens new connections that may resume.
            const launches =
              mode === 'cold'
                ? Array.from({ length: o.runs }, () => [false])
                : [[true, ...Array.from({ length: o.runs }, () => false)]];
            for (const rounds of launches) {
              const t0 = Date.now();
              let b: LaunchedBrowser | null = null;
              let counts = '';
              let step = 'launch';
              try {
                const opened = await openOptedIn(name, lab, hosts, profile.name, collector.url, quic);
                b = opened.b;
                const ext = opened.ext;
                // As the synthetic runner does: a visit started while Chromium is still busy (launch, opt-in)
                // measures that work in its phases — over QUIC at once, since the handshake starts with the connection.
                const settleSession = name === 'chromium' ? await openSettleSession(b.browser) : null;
                browserVersions[name] = await b.browser.version();
                step = 'visits';
                for (const prime of rounds) {
                  for (const server of servers) {
                    await settle(settleSession);
                    visits.push(
                      await visitOnce(
                        b,
                        ext,
                        lab.urls[server],
                        { browser: name, profile, mode, server, prime },
                        !!quic,
                      ),
                    );
                  }
                  // Idle connections close meanwhile (nginx keep-alive 1 s; Firefox's QUIC idle timeout 1 s).
                  if (servers.length === 1) await new Promise((r) => setTimeout(r, quic ? 2_500 : 1_500));
                }
                step = 'send';
                counts = JSON.stringify((await readStorage(ext)).counts ?? {});
                // Everything waiting goes to the collector now (the outbox sends in batches of ≤ 200).
                for (let i = 0; i < 10 && (await sendNow(b, POLL_MS)) !== 'Sent 0.'; i++);
              } catch (e) {
                visits.push({
                  browser: name,
                  profile,
                  mode,
                  server: servers[0]!,
                  prime: false,
                  start: t0,
                  end: Date.now(),
                  counted: 0,
                  error: `${step}: ${e instanceof Error ? e.message.split('\n')[0]! : String(e)}`,
                });
              } finally {
                await b?.close().catch(() => undefined);
              }
              o.onProgress?.(
                `extension ${name.padEnd(8)} ${profile.name.padEnd(16)} ${mode.padEnd(4)} ${rounds.length * servers.length} visits in ${Date.now() - t0} ms; extension counted ${counts} (per visit: ${visits
                  .slice(-rounds.length * servers.length)
                  .map((v) => v.counted)
                  .join(',')})`,
              );
            }
          }
        }
      }
    }
    return { visits, rows: await collector.rows(), browserVersions };
  } finally {
    await collector.close().catch(() => undefined);
  }
}

/** How long opt-in may take before the launch is retried (a hung call would wait out the 180 s protocol timeout). */
const OPT_IN_TIMEOUT_MS = 30_000;

/**
 * A browser with the extension, opted in, and its popup open. Under load the opt-in sometimes hangs in
 * a page call that never returns (seen in Chromium, rAF and interval polling alike): such a launch is
 * closed and made again, up to three times. The profile folder goes with the browser.
 */
async function openOptedIn(
  name: 'chromium' | 'firefox',
  lab: RunningLab,
  hosts: string[],
  profile: string,
  collectorUrl: string,
  quic?: LaunchOptions['quic'],
) {
  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), `tlsrum-accuracy-ext-${name}-`));
    let b: LaunchedBrowser | null = null;
    try {
      b = await launch(name, {
        profileDir: join(dir, 'profile'),
        certs: {
          dir: lab.ca.dir,
          caPem: lab.ca.caCert,
          spki: [lab.ca.leafSpki],
          keyOf: () => lab.ca.leafKey,
          certOf: () => lab.ca.leafCert,
        },
        hosts,
        extensionDir: join(EXTENSION_DIST, name),
        // A QUIC connection outlives Caddy's 1 s HTTP idle timeout: Chromium closes it on request.
        ...(quic ? { quic, chromiumArgs: ['--enable-net-benchmarking'] } : { socksPort: lab.socks[profile] }),
      });
      const launched = b;
      let timer: NodeJS.Timeout | undefined;
      const ext = await Promise.race([
        optIn(launched, collectorUrl, POLL_MS).then(() => extensionPage(launched, 'popup/index.html')),
        new Promise<never>(
          (_, rej) =>
            (timer = setTimeout(() => rej(new Error(`opt-in took over ${OPT_IN_TIMEOUT_MS} ms`)), OPT_IN_TIMEOUT_MS)),
        ),
      ]).finally(() => clearTimeout(timer));
      const close = launched.close;
      return {
        b: { ...launched, close: async () => (await close(), rmSync(dir, { recursive: true, force: true })) },
        ext,
      };
    } catch (e) {
      await b?.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      if (attempt >= 3) throw e;
    }
  }
}

type Meta = Omit<ExtensionVisit, 'start' | 'end' | 'error' | 'counted'>;

/**
 * One visit in a new tab, until the extension has counted the page's entries (or 5 s: its content
 * script reports in idle time, at the latest 3 s after the entries; Firefox sometimes never reports
 * the navigation entry, see the report).
 */
async function visitOnce(
  b: LaunchedBrowser,
  ext: Awaited<ReturnType<typeof extensionPage>>,
  url: string,
  meta: Meta,
  closeConnections = false,
): Promise<ExtensionVisit> {
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
    while ((await counted()) < before + ENTRIES_PER_VISIT && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
  } catch (e) {
    error = e instanceof Error ? e.message.split('\n')[0] : String(e);
  } finally {
    // Sockets go, session tickets stay: the next visit opens a new connection that may resume.
    if (closeConnections && b.name === 'chromium')
      await tab.evaluate('chrome.benchmarking.closeConnections()').catch(() => undefined);
    await tab.close().catch(() => undefined);
  }
  return { ...meta, start, end: Date.now(), counted: (await counted()) - before, ...(error ? { error } : {}) };
}
