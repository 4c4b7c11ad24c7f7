/**
 * The Configuration panel in a real browser against a real collector whose scheduler probed a real TLS
 * server twice — first with session tickets, then restarted without them — on top of generated field data
 * for the site: the checklist, the recommendations priced by the what-if model, and the change log show.
 * A token entered the README's way (no site chosen) reads its site's configuration; a probe that could not
 * connect shows its reason, not a column of "?".
 * Screenshot: test-artifacts/dashboard/configuration.png; with DOCS_SCREENSHOTS=1 also copied to
 * docs/configuration-panel.png (a plain test run leaves the docs, and the tree, as they are).
 */
import { execFileSync } from 'node:child_process';
import { constants as cryptoConstants, X509Certificate } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { newReadToken } from '@tlsrum/collector/auth';
import { generateDemoData, SITES } from '@tlsrum/collector/demo';
import { insertProbes } from '@tlsrum/collector/probes/store';
import { dashboardCollector, launchChromium, type TestCollector } from './support/collector';

const SITE = 'shop.example.com';
const artifacts = fileURLToPath(new URL('../../../test-artifacts/dashboard/', import.meta.url));
const docsShot = fileURLToPath(new URL('../../../docs/configuration-panel.png', import.meta.url));

let work: string;
let app: TestCollector;
let browser: Browser;
let server: Server | null = null;
let port: number;

/**
 * Waits until the page has settled on `site`'s view — every panel drawn, found nothing or failed after its
 * retry (a loaded machine can take a minute) — and says what the Configuration panel then shows.
 */
async function settledConfig(page: Page, site: string): Promise<{ state?: string; text: string }> {
  try {
    await page.waitForFunction(
      (s) =>
        document.body.dataset.panels === 'settled' &&
        document.getElementById('scope')!.textContent!.startsWith(`Site ${s}`),
      { timeout: 170_000 },
      site,
    );
  } catch (err) {
    // What the page showed instead: the scope line, the notice and each panel's state and words.
    const shown = await page.evaluate(() => ({
      panels: document.body.dataset.panels,
      scope: document.getElementById('scope')?.textContent,
      notice: document.getElementById('notice')?.textContent,
      sections: Array.from(
        document.querySelectorAll<HTMLElement>('section.panel'),
        (s) => `${s.id}: ${s.dataset.state} ${s.querySelector('.status')?.textContent ?? ''}`,
      ),
    }));
    throw new Error(`the page did not settle on ${site}'s view: ${JSON.stringify(shown)}`, { cause: err });
  }
  return page.$eval('#config', (s) => ({ state: (s as HTMLElement).dataset.state, text: s.textContent ?? '' }));
}

/** A lab CA and an RSA-4096 leaf for SITE (openssl), so the probe sees a realistic "large RSA key" site. */
function makeCerts(dir: string) {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key']);
  run([
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-sha256',
    '-days',
    '30',
    '-subj',
    '/CN=tlsrum test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
    '-out',
    'ca.pem',
  ]);
  run(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:4096', '-out', 'leaf.key']);
  run(['req', '-new', '-key', 'leaf.key', '-subj', `/CN=${SITE}`, '-out', 'leaf.csr']);
  writeFileSync(
    join(dir, 'leaf.ext'),
    `basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${SITE}\n`,
  );
  run([
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '30',
    '-sha256',
    '-extfile',
    'leaf.ext',
    '-out',
    'leaf.pem',
  ]);
  return {
    ca: join(dir, 'ca.pem'),
    cert: readFileSync(join(dir, 'leaf.pem')),
    key: readFileSync(join(dir, 'leaf.key')),
  };
}

/** The site's server; `tickets: false` is OpenSSL's SSL_OP_NO_TICKET (Node servers keep no session cache). */
async function startServer(certs: { cert: Buffer; key: Buffer }, tickets: boolean, at = 0): Promise<number> {
  server = createServer(
    { cert: certs.cert, key: certs.key, ...(tickets ? {} : { secureOptions: cryptoConstants.SSL_OP_NO_TICKET }) },
    (_q, res) => res.end('shop\n'),
  );
  await new Promise<void>((r) => server!.listen(at, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

const stopServer = () => new Promise((r) => (server ? server.close(r) : r(undefined)));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tlsrum-config-panel-'));
  const certs = makeCerts(work);
  port = await startServer(certs, true);
  // Probe cycles are run by the test (runCycle), one before and one after the server's change.
  app = await dashboardCollector(work, {
    MIN_CLIENTS_PER_CELL: '5',
    PROBE_RUNS: '1',
    PROBE_CA_FILE: certs.ca,
    PROBE_CONNECT_TO: `${SITE}:443:127.0.0.1:${port}`,
  });
  // The site's field data agree with the server the probe sees (an RSA-4096 leaf sent alone, no stapling), so
  // its what-if prices the same certificate the checklist shows.
  const leafBytes = new X509Certificate(certs.cert).raw.length;
  const sites = SITES.map((s) =>
    s.hostname === SITE
      ? {
          ...s,
          crypto: { key: 'rsa' as const, bits: 4096, chain: 1, chainBytes: leafBytes, ocspStapled: false, pq: false },
        }
      : s,
  );
  await generateDemoData(app.store.ingest, { records: 40_000, days: 7, seed: 5, sites });
  await app.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
  // Probe 1: tickets on. Probe 2: the server restarted without tickets on the same port.
  const { token, hash } = newReadToken();
  await app.sites.register(SITE, hash);
  const [first] = await app.probes.runCycle();
  expect(first!.outcome.result.resumption['1.3']).toBe(true);
  await stopServer();
  await startServer(certs, false, port);
  const [second] = await app.probes.runCycle();
  expect(second!.outcome.result.resumption['1.3']).toBe(false);
  (globalThis as { token?: string }).token = token;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await stopServer();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('dashboard: Configuration panel', () => {
  it('shows the checklist, priced recommendations and what changed when', async () => {
    const token = (globalThis as { token?: string }).token!;
    const page = await browser.newPage();
    await page.setViewport({ width: 1440, height: 1000 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    await page.goto(`${base}/?range=7d&site=${SITE}`);
    await page.type('input[name=token]', token);
    await page.$eval('input[name=token]', (i) => i.dispatchEvent(new Event('change', { bubbles: true })));
    const config = await settledConfig(page, SITE);
    expect(config.state, config.text).toBe('ready');
    const { text } = config;
    // Checklist rows with the probe's verdicts.
    const rows = await page.$$eval('#config table:first-of-type tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.children, (c) => c.textContent)),
    );
    expect(rows).toContainEqual(['TLS 1.3', '✓']);
    expect(rows).toContainEqual(['Session resumption (tickets)', '✗']);
    expect(rows).toContainEqual(['ECDSA or RSA-2048 certificate key', '✗']);
    // The test server's certificate names no OCSP service: stapling does not apply, so no verdict.
    expect(rows).toContainEqual(['OCSP stapling', '?']);
    // The probed server is this process's own Node TLS server: with OpenSSL 3.5 (Node 24) both ends offer
    // X25519MLKEM768 and agree on it; with OpenSSL 3.0 the probe cannot offer it, so it cannot tell.
    expect(rows).toContainEqual(['Post-quantum key exchange', process.versions.openssl.startsWith('3.0') ? '?' : '✓']);
    // Recommendations, each with a saving estimated from the site's own data and its assumption.
    expect(text).toContain('Make session resumption work');
    expect(text).toContain('Use an ECDSA P-256 certificate');
    expect(text).toMatch(/Estimated saving for your visitors: [\d.]+ (ms|s) at p75/);
    expect(await page.$$eval('#config details', (d) => d.length)).toBeGreaterThanOrEqual(3);
    // What changed when: the tickets turned off between the two probes.
    expect(text).toContain('What changed when');
    expect(text).toMatch(/TLS 1\.3 resumptiononoff/);
    await page.$eval('#config', (s) => s.scrollIntoView());
    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, 'configuration.png');
    await (await page.$('#config'))!.screenshot({ path: shot });
    if (process.env.DOCS_SCREENSHOTS === '1') copyFileSync(shot, docsShot);
    expect(errors).toEqual([]);
    await page.close();
  }, 200_000);

  it("reads the token's site when the token is entered without choosing a site (as the README says)", async () => {
    const token = (globalThis as { token?: string }).token!;
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    await page.goto(`${base}/?range=7d`);
    await page.type('input[name=token]', token);
    await page.click('#apply-token');
    const config = await settledConfig(page, SITE);
    expect(config.state, config.text).toBe('ready');
    const rows = await page.$$eval('#config table:first-of-type tbody tr', (trs) =>
      trs.map((tr) => Array.from(tr.children, (c) => c.textContent)),
    );
    expect(rows).toContainEqual(['Session resumption (tickets)', '✗']);
    // Two probes in the range: the change log, never "no change since" a date before the first probe.
    expect(await page.$eval('#config', (s) => s.textContent)).not.toContain('No change seen since');
    // The site's view leads with what needs attention: the items the probe found off, linked to the panel.
    // The verdict loads its own queries beside the Configuration panel's; the page had settled, so it is drawn.
    const verdict = await page.$eval('#verdict', (s) => ({
      state: (s as HTMLElement).dataset.state,
      text: s.textContent,
    }));
    expect(verdict.state, verdict.text ?? '').toBe('ready');
    const attention = await page.$$eval('#verdict .attention li a', (as) =>
      as.map((a) => [a.textContent, (a as HTMLAnchorElement).hash]),
    );
    expect(attention).toContainEqual(['Off: Session resumption (tickets)', '#config']);
    const order = await page.$$eval('section.panel', (ss) => ss.map((s) => s.id));
    expect(order.slice(0, 3)).toEqual(['verdict', 'alerts', 'config']);
    await page.close();
  }, 200_000);

  it('shows the probe\'s own error when a probe could not connect, not "?" and not "nothing to recommend"', async () => {
    const down = 'down.example.com';
    const { token, hash } = newReadToken();
    await app.sites.register(down, hash);
    const reason = 'tcp: connect ECONNREFUSED 127.0.0.1:443';
    await insertProbes(app.store.query, [
      {
        site: down,
        hostname: down,
        at: Date.now(),
        outcome: {
          result: {
            url: `https://${down}/`,
            host: down,
            phases: { dns: null, tcp: null, tls: null, ttfb: null },
            tls: {
              versions: { '1.0': null, '1.1': null, '1.2': null, '1.3': null },
              negotiated: { version: null, cipher: null, group: null, alpn: null },
            },
            pq: { supported: null },
            cert: { chainLength: 0, chainBytes: 0, leaf: null },
            ocsp: { stapled: null },
            resumption: { '1.2': null, '1.3': null, ticketLifetimeS: null },
            earlyData: { allowed: null },
            h3: { advertised: false, altSvc: null },
            errors: [reason],
          },
          identity: { leafSpkiSha256: null, chainSha256: null },
        },
      },
    ]);
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    await page.goto(`${base}/?range=7d`);
    await page.type('input[name=token]', token);
    await page.click('#apply-token');
    const { state, text } = await settledConfig(page, down);
    expect(state, text).toBe('ready');
    expect(text).toContain(`The probe could not connect to ${down}`);
    expect(text).toContain(reason);
    expect(text).not.toContain('Nothing to recommend');
    expect(text).not.toContain('?');
    // The first probe: no "no change since" a date before it.
    expect(text).toContain('This is the first probe');
    expect(await page.$eval('#verdict .attention', (s) => s.textContent)).toContain(reason);
    await (await page.$('#config'))!.screenshot({ path: join(artifacts, 'configuration-probe-failed.png') });
    await page.close();
  }, 200_000);
});
