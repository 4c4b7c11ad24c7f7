/**
 * Chromium through puppeteer-core + CDP + NetLog. One browser per URL (its NetLog is complete only once
 * the browser exits): cold visits each get a fresh browser context (no sockets, no session tickets, no
 * host cache), warm visits share one context whose sockets are closed between visits
 * (`chrome.benchmarking.closeConnections()`, `--enable-net-benchmarking`), so each warm visit opens a new
 * connection that can resume the previous session.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type CDPSession } from 'puppeteer-core';
import { readNetLog } from './netlog';
import { ENLARGE_RESOURCE_BUFFER, readPageEntries, type PageEntry } from './page-entries';
import type { NormalizedOptions } from './options';
import type { NetLogConnection } from './types';
import { describeNavigationError } from './errors';
import { chromiumHomeTrusting } from './nss';
import { openSettleSession, settle } from './settle';

export interface CdpResponse {
  url: string;
  status: number;
  protocol: string | null;
  connectionId: number | null;
  connectionReused: boolean;
  headers: Record<string, string>;
  securityDetails: Record<string, unknown> | null;
}

/** One visit as the browser saw it, before the NetLog is read. */
export interface RawChromiumVisit {
  url: string;
  run: number;
  prime: boolean;
  startedAt: number;
  error?: string;
  entries: PageEntry[];
  responses: CdpResponse[];
}

export interface ChromiumSession {
  version: string;
  visits: RawChromiumVisit[];
  sockets: Map<number, NetLogConnection>;
}

export function chromiumArgs(o: NormalizedOptions, netLogPath: string): string[] {
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-domain-reliability',
    '--disable-client-side-phishing-detection',
    '--no-pings',
    // Background fetches of the browser itself (network time, optimisation hints) would add
    // connections of their own to the NetLog; none belong to a visit.
    '--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate',
    '--enable-net-benchmarking',
    `--log-net-log=${netLogPath}`,
    '--net-log-capture-mode=Default',
  ];
  const rules = Object.entries(o.hostResolver).map(([pattern, address]) => `MAP ${pattern} ${address}`);
  // The rules apply to IP literals too: the proxy's own address must stay reachable.
  if (o.proxy) rules.push(`EXCLUDE ${new URL(o.proxy).hostname}`);
  if (o.blockOtherHosts) rules.push('MAP * ~NOTFOUND');
  if (rules.length) args.push(`--host-resolver-rules=${rules.join(', ')}`);
  if (o.spkiHashes.length) args.push(`--ignore-certificate-errors-spki-list=${o.spkiHashes.join(',')}`);
  if (o.proxy) args.push(`--proxy-server=${o.proxy}`);
  if (o.h3Origins.length) args.push('--enable-quic', `--origin-to-force-quic-on=${o.h3Origins.join(',')}`);
  return args;
}

/** Runs every visit of one URL in one browser, then reads the NetLog. */
export async function chromiumSession(
  o: NormalizedOptions,
  url: string,
  onVisit: (v: RawChromiumVisit) => void,
): Promise<ChromiumSession> {
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-synth-'));
  const profile = join(dir, 'profile');
  mkdirSync(join(profile, 'Default'), { recursive: true });
  // Preconnect and speculative sockets would hide handshakes (platform notes): prediction off.
  writeFileSync(join(profile, 'Default', 'Preferences'), JSON.stringify({ net: { network_prediction_options: 2 } }));
  const netLogPath = join(dir, 'netlog.json');
  let browser: Browser | null = null;
  const visits: RawChromiumVisit[] = [];
  try {
    browser = await puppeteer.launch({
      executablePath: o.executablePath,
      headless: true,
      userDataDir: profile,
      args: chromiumArgs(o, netLogPath),
      timeout: 30_000,
      // --ca: Chromium on Linux trusts what $HOME/.pki/nssdb trusts; this run's HOME has the CA in it.
      ...(o.caCertPath ? { env: { ...process.env, HOME: chromiumHomeTrusting(join(dir, 'home'), o.caCertPath) } } : {}),
    });
    const version = await browser.version();
    const settleSession = await openSettleSession(browser);
    const beforeNavigation = () => settle(settleSession);
    const record = (v: RawChromiumVisit) => {
      visits.push(v);
      onVisit(v);
    };
    if (o.mode === 'cold') {
      for (let run = 0; run < o.runs; run++) {
        const context = await browser.createBrowserContext();
        try {
          record(await visit(context, url, run, false, o.visitTimeoutMs, false, beforeNavigation));
        } finally {
          await context.close().catch(() => {});
        }
      }
    } else {
      const context = await browser.createBrowserContext();
      try {
        record(await visit(context, url, -1, true, o.visitTimeoutMs, true, beforeNavigation));
        for (let run = 0; run < o.runs; run++)
          record(await visit(context, url, run, false, o.visitTimeoutMs, true, beforeNavigation));
      } finally {
        await context.close().catch(() => {});
      }
    }
    await browser.close();
    browser = null;
    return { version, visits, sockets: readNetLog(netLogPath) };
  } finally {
    if (browser) await browser.close().catch(() => browser?.process()?.kill('SIGKILL'));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function visit(
  context: BrowserContext,
  url: string,
  run: number,
  prime: boolean,
  timeoutMs: number,
  closeConnectionsAfter: boolean,
  beforeNavigation: () => Promise<unknown>,
): Promise<RawChromiumVisit> {
  const startedAt = Date.now();
  const page = await context.newPage();
  const responses: CdpResponse[] = [];
  let cdp: CDPSession | null = null;
  try {
    cdp = await page.createCDPSession();
    cdp.on('Network.responseReceived', (e) => {
      const r = e.response;
      responses.push({
        url: r.url,
        status: r.status,
        protocol: r.protocol ?? null,
        connectionId: typeof r.connectionId === 'number' ? r.connectionId : null,
        connectionReused: r.connectionReused,
        headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), String(v)])),
        securityDetails: (r.securityDetails as unknown as Record<string, unknown>) ?? null,
      });
    });
    await cdp.send('Network.enable');
    // Every visit goes to the network: a cached response would have no connection to measure.
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.evaluateOnNewDocument(ENLARGE_RESOURCE_BUFFER);
    let error: string | undefined;
    let entries: PageEntry[] = [];
    try {
      // The launch, the new context and the page's renderer are still busy: let them finish first.
      await beforeNavigation();
      const response = await page.goto(url, { waitUntil: 'load', timeout: timeoutMs });
      if (!response) error = 'no response';
      else if (response.status() >= 400) error = `HTTP ${response.status()}`;
      // Late resources (images set by script, fetches after load) still count.
      await page.waitForNetworkIdle({ idleTime: 300, timeout: Math.min(5_000, timeoutMs) }).catch(() => {});
      entries = await readPageEntries(page);
    } catch (err) {
      error = describeNavigationError(err);
    }
    if (closeConnectionsAfter) {
      // Sockets go, session tickets stay: the next visit must open a new connection that can resume.
      await page.evaluate('chrome.benchmarking.closeConnections()').catch(() => {});
    }
    return { url, run, prime, startedAt, ...(error ? { error } : {}), entries, responses };
  } finally {
    await cdp?.detach().catch(() => {});
    await page.close().catch(() => {});
  }
}
