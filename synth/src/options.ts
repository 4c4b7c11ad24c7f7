/** Validates runSynthetic's options once, with messages that name the bad value. */
import { existsSync, readFileSync } from 'node:fs';
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import type { SynthBrowser, SynthMode, SyntheticOptions } from './types';

export const DEFAULT_EXECUTABLES: Record<SynthBrowser, string> = {
  chromium: '/usr/bin/chromium',
  firefox: '/usr/bin/firefox-esr',
};
export const MAX_RUNS = 1000;
export const MAX_URLS = 1000;

export interface NormalizedOptions {
  urls: string[];
  browser: SynthBrowser;
  mode: SynthMode;
  runs: number;
  proxy: string | null;
  hostResolver: Record<string, string>;
  blockOtherHosts: boolean;
  caCertPath: string | null;
  spkiHashes: string[];
  h3Origins: string[];
  executablePath: string;
  visitTimeoutMs: number;
  clientToken: string;
}

export class SynthOptionsError extends Error {
  override name = 'SynthOptionsError';
}
/** The browser binary is absent or not executable. */
export class BrowserMissingError extends Error {
  override name = 'BrowserMissingError';
}

export function normalizeOptions(o: SyntheticOptions): NormalizedOptions {
  if (!Array.isArray(o.urls) || o.urls.length === 0) throw new SynthOptionsError('no URL given');
  if (o.urls.length > MAX_URLS) throw new SynthOptionsError(`at most ${MAX_URLS} URLs, got ${o.urls.length}`);
  const urls = o.urls.map((raw) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new SynthOptionsError(`not a URL: "${raw}"`);
    }
    if (u.protocol !== 'https:')
      throw new SynthOptionsError(`only https:// URLs have a TLS handshake to measure: "${raw}"`);
    return u.href;
  });
  const browser = o.browser ?? 'chromium';
  if (browser !== 'chromium' && browser !== 'firefox')
    throw new SynthOptionsError(`browser must be chromium or firefox, got "${String(browser)}"`);
  const mode = o.mode ?? 'cold';
  if (mode !== 'cold' && mode !== 'warm')
    throw new SynthOptionsError(`mode must be cold or warm, got "${String(mode)}"`);
  const runs = o.runs ?? 1;
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS)
    throw new SynthOptionsError(`runs must be a whole number from 1 to ${MAX_RUNS}, got ${runs}`);
  let proxy: string | null = null;
  if (o.proxy) {
    const p = /^socks5:\/\/([^/:]+|\[[0-9a-f:]+\]):(\d{1,5})\/?$/i.exec(o.proxy);
    if (!p) throw new SynthOptionsError(`proxy must look like socks5://HOST:PORT, got "${o.proxy}"`);
    proxy = `socks5://${p[1]}:${p[2]}`;
  }
  const hostResolver: Record<string, string> = {};
  for (const [pattern, address] of Object.entries(o.hostResolver ?? {})) {
    if (!/^(\*\.)?[a-z0-9.-]+$/i.test(pattern))
      throw new SynthOptionsError(`host pattern must be a name or *.name, got "${pattern}"`);
    if (!/^[0-9.]+$|^\[[0-9a-f:]+\]$/i.test(address))
      throw new SynthOptionsError(`host ${pattern} must map to an IP address, got "${address}"`);
    hostResolver[pattern.toLowerCase()] = address;
  }
  const spkiHashes = [...(o.spkiHashes ?? [])];
  for (const h of spkiHashes) {
    if (!/^[A-Za-z0-9+/]{43}=$/.test(h)) throw new SynthOptionsError(`SPKI hash must be base64 SHA-256, got "${h}"`);
  }
  let caCertPath: string | null = null;
  if (o.caCertPath) {
    if (!existsSync(o.caCertPath)) throw new SynthOptionsError(`CA certificate not found: ${o.caCertPath}`);
    caCertPath = o.caCertPath;
    // Trusted through an NSS database made for the run (nss.ts); an SPKI listed for
    // --ignore-certificate-errors-spki-list only matches certificates the server sends, and servers do
    // not send their root. Reading it here refuses a file that is not a certificate before any visit.
    try {
      new X509Certificate(readFileSync(o.caCertPath));
    } catch {
      throw new SynthOptionsError(`not a PEM or DER certificate: ${o.caCertPath}`);
    }
  }
  const h3Origins = (o.h3Origins ?? []).map((origin) => {
    if (!/^[a-z0-9.-]+:\d{1,5}$/i.test(origin))
      throw new SynthOptionsError(`h3 origin must be HOST:PORT, got "${origin}"`);
    return origin.toLowerCase();
  });
  const visitTimeoutMs = o.visitTimeoutMs ?? 30_000;
  if (!Number.isInteger(visitTimeoutMs) || visitTimeoutMs < 1000 || visitTimeoutMs > 600_000) {
    throw new SynthOptionsError(`visit timeout must be 1000–600000 ms, got ${visitTimeoutMs}`);
  }
  const clientToken = o.clientToken ?? randomBytes(12).toString('base64url');
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(clientToken))
    throw new SynthOptionsError('client token must be 8–64 characters of [A-Za-z0-9_-]');
  const executablePath = o.executablePath ?? DEFAULT_EXECUTABLES[browser];
  if (!existsSync(executablePath)) {
    throw new BrowserMissingError(
      `${browser} not found at ${executablePath}: install it (node scripts/ensure-system-deps.mjs, or apt-get install ${browser === 'chromium' ? 'chromium' : 'firefox-esr'}) or pass its path`,
    );
  }
  return {
    urls,
    browser,
    mode,
    runs,
    proxy,
    hostResolver,
    blockOtherHosts: o.blockOtherHosts ?? false,
    caCertPath,
    spkiHashes: [...new Set(spkiHashes)],
    h3Origins,
    executablePath,
    visitTimeoutMs,
    clientToken,
  };
}

/** Base64 SHA-256 of a certificate's SubjectPublicKeyInfo (what `--spki` and --ignore-certificate-errors-spki-list take). */
export function spkiHashOfPem(pem: string): string {
  const cert = new X509Certificate(pem);
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}
