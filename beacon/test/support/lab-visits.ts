/**
 * Simulated visitors of the lab's sites, each viewing pages that carry the served beacon's tag, in
 * Chromium or Firefox ESR through one RTT profile of the lab (TCP through its delaying SOCKS proxy,
 * HTTP/3 through its delaying UDP relay). Each visitor has its own browser profile and its own front to
 * the collector (e2e/lab/beacon-front.ts), so the collector sees it at its own client address. A page
 * view ends by leaving the page, which sends the beacon; the next view starts once the front has
 * forwarded it. Used by the accuracy report's beacon arm and the seeds' resumption run (e2e imports this
 * file by path at run time, as it does the extension's arm).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import type { BeaconFronts } from '@tlsrum/e2e/lab/beacon-front';
import { BEACON_FRONT_HOST } from '@tlsrum/e2e/lab/beacon-front';
import type { RunningLab } from '@tlsrum/e2e/lab/lab';
import type { RttProfile } from '@tlsrum/e2e/lab/profiles';
import { hostOf, ORIGIN_PREFIXES, type ServerId } from '@tlsrum/e2e/lab/servers';
import { openSettleSession, settle } from '@tlsrum/synth/settle';
import { launch, type BrowserName, type LaunchedBrowser } from '@tlsrum/extension/test/support/browsers';

export interface BeaconView {
  browser: BrowserName;
  profile: RttProfile;
  server: ServerId;
  visitor: number;
  /** 0: the visitor's first view of the server (a full handshake); later rounds may resume. */
  round: number;
  start: number;
  end: number;
  /** Beacon bodies the visitor's front forwarded for this view (0: the page had no new connection to send). */
  beacons: number;
  error?: string;
}

export interface VisitorRun {
  browser: BrowserName;
  profile: RttProfile;
  /** One launch's servers: TCP ones, or `h3` alone (QUIC to the profile's UDP relay). */
  servers: ServerId[];
  visitors: readonly number[];
  /** Views of each server per visitor, in rounds over the servers. */
  rounds: number;
  /** The page visitor `v` views on `server`. */
  urlOf: (server: ServerId, visitor: number) => string;
  /** Chromium only: visitors viewing at once (each in a browser context of its own; default 1). */
  parallel?: number;
}

/** How long a server's idle connection lives (nginx keep-alive 1 s; Caddy and Firefox's QUIC idle timeout 1 s), plus margin. */
const IDLE_CLOSE_MS = { tcp: 1_300, quic: 2_500 };
/** How long a view waits for its beacon to reach the front. */
const BEACON_WAIT_MS = 5_000;

export async function runVisitors(
  lab: RunningLab,
  fronts: BeaconFronts,
  o: VisitorRun,
): Promise<{ views: BeaconView[]; version: string }> {
  const quicRelay = o.servers.includes('h3') ? lab.udp[o.profile.name] : undefined;
  const quic = quicRelay
    ? { address: quicRelay.split(':')[0]!, port: lab.ports.h3, hosts: ORIGIN_PREFIXES.map((p) => hostOf(p, 'h3')) }
    : undefined;
  const hosts = [BEACON_FRONT_HOST, ...o.servers.flatMap((s) => ORIGIN_PREFIXES.map((p) => hostOf(p, s)))];
  const views: BeaconView[] = [];
  const parallel = o.browser === 'chromium' ? Math.max(1, o.parallel ?? 1) : 1;
  let version = '';

  const launchOne = async () => {
    const dir = mkdtempSync(join(tmpdir(), `tlsrum-beacon-visitor-${o.browser}-`));
    const b = await launch(o.browser, {
      profileDir: join(dir, 'profile'),
      certs: {
        dir: lab.ca.dir,
        caPem: lab.ca.caCert,
        spki: [lab.ca.leafSpki],
        keyOf: () => lab.ca.leafKey,
        certOf: () => lab.ca.leafCert,
      },
      hosts,
      // A QUIC connection outlives the server's idle timeout in Chromium: it closes it on request.
      ...(quic ? { quic, chromiumArgs: ['--enable-net-benchmarking'] } : { socksPort: lab.socks[o.profile.name] }),
    });
    version ||= await b.browser.version();
    return { b, remove: () => rmSync(dir, { recursive: true, force: true }) };
  };

  const visitor = async (v: number, page: () => Promise<Page>, b: LaunchedBrowser) => {
    const settleSession = o.browser === 'chromium' && parallel === 1 ? await openSettleSession(b.browser) : null;
    const lastEnd = new Map<ServerId, number>();
    for (let round = 0; round < o.rounds; round++) {
      for (const server of o.servers) {
        // The previous view's connection to this server has closed: this view opens a new one.
        const idle = (lastEnd.get(server) ?? 0) + (quic ? IDLE_CLOSE_MS.quic : IDLE_CLOSE_MS.tcp) - Date.now();
        if (idle > 0) await new Promise((r) => setTimeout(r, idle));
        await settle(settleSession);
        views.push(
          await viewOnce(await page(), fronts, o.urlOf(server, v), { ...o, server, visitor: v, round }, !!quic),
        );
        lastEnd.set(server, Date.now());
      }
    }
  };

  if (parallel === 1) {
    // One launch per visitor: its own profile, so its own session tickets.
    for (const v of o.visitors) {
      const { b, remove } = await launchOne();
      try {
        await visitor(v, () => b.browser.newPage(), b);
      } finally {
        await b.close().catch(() => undefined);
        remove();
      }
    }
  } else {
    // One launch, a browser context per visitor (contexts share no connection and no session ticket).
    const { b, remove } = await launchOne();
    try {
      const queue = [...o.visitors];
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          for (let v = queue.shift(); v !== undefined; v = queue.shift()) {
            const context = await b.browser.createBrowserContext();
            try {
              await visitor(v, () => context.newPage(), b);
            } finally {
              await context.close().catch(() => undefined);
            }
          }
        }),
      );
    } finally {
      await b.close().catch(() => undefined);
      remove();
    }
  }
  return { views, version };
}

/**
 * One page view in a new tab: loaded, the beacon's script run (its entry is in the timeline), then the
 * page left for about:blank, which sends the beacon; the view ends when the visitor's front has it
 * (or after BEACON_WAIT_MS: a page whose connections were all reused sends nothing).
 */
async function viewOnce(
  tab: Page,
  fronts: BeaconFronts,
  url: string,
  meta: Pick<BeaconView, 'browser' | 'profile' | 'server' | 'visitor' | 'round'>,
  closeConnections: boolean,
): Promise<BeaconView> {
  const sent = () => fronts.captured.filter((c) => c.visitor === meta.visitor).length;
  const before = sent();
  const start = Date.now();
  let error: string | undefined;
  try {
    await tab.goto(url, { waitUntil: 'load', timeout: 20_000 });
    await tab.waitForFunction(
      () => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/beacon.js')),
      { timeout: 10_000, polling: 50 },
    );
    await tab.goto('about:blank', { waitUntil: 'load', timeout: 10_000 });
    const deadline = Date.now() + BEACON_WAIT_MS;
    while (sent() === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  } catch (e) {
    error = e instanceof Error ? e.message.split('\n')[0] : String(e);
  } finally {
    if (closeConnections && meta.browser === 'chromium')
      await tab.evaluate('chrome.benchmarking.closeConnections()').catch(() => undefined);
    await tab.close().catch(() => undefined);
  }
  return { ...meta, start, end: Date.now(), beacons: sent() - before, ...(error ? { error } : {}) };
}
