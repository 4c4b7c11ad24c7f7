/**
 * The lab page the browser tests visit, and helpers to drive and read the extension. Every URL carries a
 * path and a query containing "secret", so a test can assert that none of it is stored anywhere.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import type { Page } from 'puppeteer-core';
import type { State } from '../../src/messages';
import type { OutboxState } from '../../src/lib/outbox';
import type { ServerSpec } from './lab';
import { extensionPage, type LaunchedBrowser } from './browsers';

export const SECRET = 'secret';
const Q = `?q=${SECRET}-query`;

/**
 * a.lab.test — TLS 1.3 only (ChaCha20), h2, Server-Timing; the page (registered site).
 * b.lab.test — TLS 1.2 only (ECDHE-ECDSA-AES128-GCM-SHA256), h2, Timing-Allow-Origin; two images, the second after load (reused).
 * c.lab.test — TLS 1.3, no Timing-Allow-Origin: opaque, counted, never measured.
 * d.lab.test — TLS 1.3, h2: a second page for the collector-down phase (a new connection).
 */
export const HOSTS = ['a.lab.test', 'b.lab.test', 'c.lab.test', 'd.lab.test'];

const page = (ports: Record<string, number>) => `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>loading</title>
<link rel="stylesheet" href="/${SECRET}-path/style.css${Q}"></head>
<body>
<img src="https://b.lab.test:${ports['b.lab.test']}/${SECRET}-b/1.gif${Q}">
<img src="https://c.lab.test:${ports['c.lab.test']}/${SECRET}-c/1.gif${Q}">
<script>
addEventListener('load', () => {
  const img = new Image();
  img.onload = img.onerror = () => { document.title = 'done'; };
  img.src = 'https://b.lab.test:${ports['b.lab.test']}/${SECRET}-b/2.gif${Q}';
});
</script>
</body></html>`;

/**
 * Idle connections close after this, so that the next visit (after waiting `IDLE_CLOSE_WAIT_MS`)
 * opens new ones — long enough for the page's own second request to b to reuse its connection.
 */
const KEEPALIVE = '2s';
export const IDLE_CLOSE_WAIT_MS = 2_600;

export const LAB_SERVERS: ServerSpec[] = [
  {
    host: 'a.lab.test',
    protocols: 'TLSv1.3',
    ciphers13: 'TLS_CHACHA20_POLY1305_SHA256',
    http2: true,
    tao: false,
    serverTiming: true,
    keepalive: KEEPALIVE,
    files: (ports) => ({
      [`${SECRET}-path/index.html`]: page(ports),
      [`${SECRET}-path/style.css`]: 'body { margin: 0 }',
    }),
  },
  {
    host: 'b.lab.test',
    protocols: 'TLSv1.2',
    ciphers12: 'ECDHE-ECDSA-AES128-GCM-SHA256',
    http2: true,
    tao: true,
    serverTiming: false,
    // Always a full handshake: Firefox then reports its key exchange group (resumed: false, observed).
    tickets: false,
    sessionCache: false,
    keepalive: KEEPALIVE,
    files: { [`${SECRET}-b/1.gif`]: '', [`${SECRET}-b/2.gif`]: '', [`${SECRET}-b/3.gif`]: '' },
  },
  {
    host: 'c.lab.test',
    protocols: 'TLSv1.3',
    http2: true,
    tao: false,
    serverTiming: false,
    keepalive: KEEPALIVE,
    files: { [`${SECRET}-c/1.gif`]: '' },
  },
  {
    host: 'd.lab.test',
    protocols: 'TLSv1.3',
    http2: true,
    tao: false,
    serverTiming: false,
    keepalive: KEEPALIVE,
    files: (ports) => ({
      [`${SECRET}-d/index.html`]:
        '<!doctype html><html><head><link rel="icon" href="data:,"><title>done</title></head><body>d</body></html>',
      // The prerender test: a page that asks the browser to prerender the next one (same origin, as
      // speculation rules require), which opens a new connection to b.
      [`${SECRET}-d/prerender.html`]: `<!doctype html><html><head><link rel="icon" href="data:,"><title>done</title>
<script type="speculationrules">{"prerender": [{"source": "list", "urls": ["/${SECRET}-d/next.html${Q}"]}]}</script></head>
<body><a id="next" href="/${SECRET}-d/next.html${Q}">next</a></body></html>`,
      [`${SECRET}-d/next.html`]: `<!doctype html><html><head><link rel="icon" href="data:,"><title>next</title></head>
<body><img src="https://b.lab.test:${ports['b.lab.test']}/${SECRET}-b/3.gif${Q}"></body></html>`,
    }),
  },
];

export const pageUrl = (url: (host: string, path?: string) => string) =>
  url('a.lab.test', `/${SECRET}-path/index.html${Q}`);
export const secondPageUrl = (url: (host: string, path?: string) => string) =>
  url('d.lab.test', `/${SECRET}-d/index.html${Q}`);
export const prerenderPageUrl = (url: (host: string, path?: string) => string) =>
  url('d.lab.test', `/${SECRET}-d/prerender.html${Q}`);

/** Visits a lab page in a new tab and waits until it says it is done. */
export async function visit(b: LaunchedBrowser, url: string): Promise<Page> {
  const tab = await b.browser.newPage();
  await tab.goto(url, { waitUntil: 'load' });
  await tab.waitForFunction(() => document.title === 'done', { timeout: 15_000 });
  // Leave the tab open: the content script reports in idle time.
  return tab;
}

export interface Stored {
  outbox?: OutboxState;
  recent?: { host: string; record: HandshakeRecord }[];
  counts?: State['counts'];
  settings?: State['settings'];
  storageVersion?: number;
}

/** The extension's storage, read from one of its pages (the lab's view of "what would be sent"). */
export async function readStorage(p: Page): Promise<Stored> {
  return p.evaluate(() => {
    const api = (globalThis as unknown as { browser?: typeof chrome }).browser ?? chrome;
    return api.storage.local.get(['outbox', 'recent', 'counts', 'settings', 'storageVersion']);
  }) as Promise<Stored>;
}

/**
 * Waits until the extension's storage satisfies `done`. `visited`: the tab whose entries are awaited; on a
 * timeout its own navigation and resource timings are shown too (why an entry was skipped, not measured).
 */
export async function waitForStorage(
  p: Page,
  done: (s: Stored) => boolean,
  timeoutMs = 20_000,
  visited?: Page,
): Promise<Stored> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await readStorage(p);
    if (done(s)) return s;
    if (Date.now() > deadline) {
      const entries = visited
        ? `; the page's own entries: ${JSON.stringify(
            await visited.evaluate(() =>
              performance
                .getEntries()
                .filter((e) => e.entryType === 'navigation' || e.entryType === 'resource')
                .map((e) => e.toJSON() as unknown),
            ),
          ).slice(0, 6000)}`
        : '';
      // What the background counted (reused, opaque, skipped) first: it says why a record is missing.
      throw new Error(
        `extension storage never reached the expected state: ${JSON.stringify({ counts: s.counts, ...s }).slice(0, 2000)}${entries}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Opts in the way a user does: collector URL on the options page, then "I agree" on the onboarding page. */
/**
 * `polling`: interval polling (ms) instead of puppeteer's default requestAnimationFrame, and each page
 * brought to the front first — the lab's accuracy run needs both: there a background tab (the
 * onboarding tab the extension opens at install can come up after ours) renders no frames, so rAF
 * waits and puppeteer's click (it scrolls the element into view and waits for a frame) hung until the
 * protocol timeout (180 s).
 */
export async function optIn(b: LaunchedBrowser, collectorUrl: string, polling?: number): Promise<Page> {
  const wait = polling ? { polling } : {};
  const options = await extensionPage(b, 'options/index.html');
  if (polling) await options.bringToFront();
  await options.waitForFunction(() => (document.getElementById('collector') as HTMLInputElement).value !== '', wait);
  await options.$eval('#collector', (el) => ((el as HTMLInputElement).value = ''));
  await options.type('#collector', collectorUrl);
  await options.click('button[type=submit]');
  await options.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('Saved'), {
    timeout: 10_000,
    ...wait,
  });
  const onboarding = await extensionPage(b, 'onboarding/index.html');
  if (polling) await onboarding.bringToFront();
  await onboarding.click('#agree');
  await onboarding.waitForFunction(() => document.getElementById('status')!.textContent!.includes('Measuring is on'), {
    timeout: 10_000,
    ...wait,
  });
  return onboarding;
}

/** Presses "Send now" in the popup (opened as a tab) and returns its status line. */
/** `polling`: see optIn. */
export async function sendNow(b: LaunchedBrowser, polling?: number): Promise<string> {
  const popup = await extensionPage(b, 'popup/index.html');
  if (polling) await popup.bringToFront();
  // The button sits in a section the popup's script shows, and gets its label, once it has read storage:
  // clicking before that fails with "not clickable" on a busy machine.
  await popup.waitForFunction(
    () => {
      const b = document.getElementById('send');
      return (
        !!b && b.offsetParent !== null && b.getBoundingClientRect().width > 0 && !(b as HTMLButtonElement).disabled
      );
    },
    { timeout: 20_000, ...(polling ? { polling } : {}) },
  );
  await popup.click('#send');
  await popup.waitForFunction(() => /^(Sent|Not sent)/.test(document.getElementById('status')!.textContent ?? ''), {
    timeout: 20_000,
    ...(polling ? { polling } : {}),
  });
  const text = await popup.$eval('#status', (el) => el.textContent ?? '');
  await popup.close();
  return text;
}
