/**
 * Chromium and Firefox ESR under puppeteer-core with the built extension, set up for the lab: lab host
 * names resolved to 127.0.0.1, the lab's certificates trusted, speculative connections off (they would
 * hide handshakes). Facts behind each flag: ../shared/notes/platform.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { GECKO_ID } from '../../src/manifest';
import type { Certs } from './lab';

export type BrowserName = 'chromium' | 'firefox';

export interface LaunchedBrowser {
  name: BrowserName;
  browser: Browser;
  /** chrome-extension://ID or moz-extension://UUID (no trailing slash); null without the extension. */
  extensionOrigin: string | null;
  close: () => Promise<void>;
}

/** Fixed moz-extension UUID (pref extensions.webextensions.uuids) so tests can open the extension's pages. */
export const FIREFOX_EXTENSION_UUID = '6b1f0d0e-6f6e-4c1a-9d8e-2a3b4c5d6e7f';

export interface LaunchOptions {
  profileDir: string;
  certs: Certs;
  hosts: string[];
  /** Unpacked extension folder (dist/<target>), or none. */
  extensionDir?: string | null;
  /** SOCKS5 proxy port (RTT emulation for fixture recording). */
  socksPort?: number;
  /** Extra Chromium command-line flags. */
  chromiumArgs?: string[];
  /**
   * HTTP/3 to these hosts only, at `address:port` (the lab's delaying UDP relay for one RTT profile):
   * they resolve to `address`, and the browser speaks QUIC to them without first trying TCP.
   */
  quic?: { address: string; port: number; hosts: string[] };
  /**
   * Leave Chromium's preloading on (its default). Off otherwise: preconnects hide handshakes. The
   * prerender test needs it on (the same setting governs speculation-rules prerendering).
   */
  preloading?: boolean;
}

export async function launchChromium(o: LaunchOptions): Promise<LaunchedBrowser> {
  // Preconnect and prediction would open connections before the fetch that uses them.
  mkdirSync(join(o.profileDir, 'Default'), { recursive: true });
  if (!o.preloading)
    writeFileSync(
      join(o.profileDir, 'Default', 'Preferences'),
      JSON.stringify({ net: { network_prediction_options: 2 } }),
    );
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-features=DnsOverHttps,HttpsUpgrades',
    `--host-resolver-rules=${o.hosts.map((h) => `MAP ${h} ${o.quic?.hosts.includes(h) ? o.quic.address : '127.0.0.1'}`).join(',')}`,
    `--ignore-certificate-errors-spki-list=${o.certs.spki.join(',')}`,
  ];
  if (o.quic)
    args.push(
      '--enable-quic',
      `--origin-to-force-quic-on=${o.quic.hosts.map((h) => `${h}:${o.quic!.port}`).join(',')}`,
    );
  if (o.socksPort) args.push(`--proxy-server=socks5://127.0.0.1:${o.socksPort}`);
  args.push(...(o.chromiumArgs ?? []));
  const browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    userDataDir: o.profileDir,
    args,
    pipe: true,
    ...(o.extensionDir ? { enableExtensions: [o.extensionDir] } : {}),
  });
  let extensionOrigin: string | null = null;
  if (o.extensionDir) {
    const worker = await browser.waitForTarget(
      (t) => t.type() === 'service_worker' && t.url().endsWith('/background.js'),
      { timeout: 20_000 },
    );
    // Node gives non-special schemes the origin "null": build it from the host.
    extensionOrigin = `chrome-extension://${new URL(worker.url()).host}`;
  }
  return { name: 'chromium', browser, extensionOrigin, close: () => browser.close() };
}

export async function launchFirefox(o: LaunchOptions): Promise<LaunchedBrowser> {
  mkdirSync(o.profileDir, { recursive: true });
  // Trust the lab CA in this profile only (never the system store).
  execFileSync('certutil', ['-N', '-d', `sql:${o.profileDir}`, '--empty-password']);
  execFileSync('certutil', ['-A', '-d', `sql:${o.profileDir}`, '-t', 'C,,', '-n', 'tlsrum-lab', '-i', o.certs.caPem]);
  const prefs: Record<string, unknown> = {
    // (A QUIC launch's hosts resolve to the relay instead: localDomains would win over forceResolve.)
    'network.dns.localDomains': o.hosts.filter((h) => !o.quic?.hosts.includes(h)).join(','),
    'extensions.webextensions.uuids': JSON.stringify({ [GECKO_ID]: FIREFOX_EXTENSION_UUID }),
    'network.http.speculative-parallel-limit': 0,
    'network.predictor.enabled': false,
    'network.prefetch-next': false,
    'network.dns.disablePrefetch': true,
    'browser.aboutwelcome.enabled': false,
    'datareporting.policy.dataSubmissionEnabled': false,
    'toolkit.telemetry.reportingpolicy.firstRun': false,
    'dom.security.https_first': false,
  };
  if (o.quic) {
    Object.assign(prefs, {
      // Firefox maps names to one address only: a QUIC launch visits nothing but the relay's hosts.
      'network.dns.forceResolve': o.quic.address,
      'network.http.http3.enable': true,
      'network.http.http3.alt-svc-mapping-for-testing': o.quic.hosts.map((h) => `${h};h3=:${o.quic!.port}`).join(','),
      // Without it Firefox tries TCP first, which the relay's address refuses.
      'network.http.http3.force-use-alt-svc-mapping-for-testing': true,
      // The lab CA added to the profile counts as a third-party root, which turns HTTP/3 off.
      'network.http.http3.disable_when_third_party_roots_found': false,
      'network.http.http3.idle_timeout': 1,
    });
  }
  if (o.socksPort) {
    Object.assign(prefs, {
      'network.proxy.type': 1,
      'network.proxy.socks': '127.0.0.1',
      'network.proxy.socks_port': o.socksPort,
      'network.proxy.socks_version': 5,
      'network.proxy.socks_remote_dns': true,
      'network.proxy.allow_hijacking_localhost': false,
      'network.proxy.no_proxies_on': 'localhost, 127.0.0.1',
    });
  }
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: '/usr/bin/firefox-esr',
    headless: true,
    userDataDir: o.profileDir,
    extraPrefsFirefox: prefs,
  });
  let extensionOrigin: string | null = null;
  if (o.extensionDir) {
    await browser.installExtension(o.extensionDir);
    extensionOrigin = `moz-extension://${FIREFOX_EXTENSION_UUID}`;
  }
  return { name: 'firefox', browser, extensionOrigin, close: () => browser.close() };
}

export function launch(name: BrowserName, o: LaunchOptions): Promise<LaunchedBrowser> {
  return name === 'chromium' ? launchChromium(o) : launchFirefox(o);
}

/** Opens one of the extension's pages in a new tab. */
export async function extensionPage(b: LaunchedBrowser, path: string): Promise<Page> {
  const url = `${b.extensionOrigin}/${path}`;
  if (b.name === 'chromium') {
    const page = await b.browser.newPage();
    await page.goto(url, { waitUntil: 'load' });
    return page;
  }
  // WebDriver BiDi refuses to navigate to moz-extension:// URLs ("not allowed in this context"), but an
  // extension page may open another (tabs.create: no popup blocker), and the onboarding tab the extension
  // opened at install is one. Puppeteer
  // reports such tabs' URL as about:blank, so pages are recognised by their own location.
  const anchor = await findPage(b, (href) => href.startsWith(`${b.extensionOrigin}/`));
  const before = new Set(await b.browser.pages());
  await anchor.evaluate(
    (u) => (globalThis as unknown as { browser: typeof chrome }).browser.tabs.create({ url: u }).then(() => undefined),
    url,
  );
  const page = await findPage(b, (href) => href === url, before);
  await page.waitForFunction(() => document.readyState === 'complete');
  return page;
}

async function findPage(
  b: LaunchedBrowser,
  match: (href: string) => boolean,
  exclude = new Set<Page>(),
  timeoutMs = 20_000,
): Promise<Page> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen: string[] = [];
    for (const p of await b.browser.pages()) {
      const href = await p.evaluate(() => location.href).catch((e: Error) => `(${e.message.slice(0, 80)})`);
      seen.push(`${exclude.has(p) ? 'old' : 'new'} ${href}`);
      if (exclude.has(p)) continue;
      if (match(href)) return p;
    }
    if (Date.now() > deadline) throw new Error(`extension page not found among ${seen.join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
