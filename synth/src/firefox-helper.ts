/**
 * The runner's helper add-on for Firefox: Firefox tells web pages nothing about TLS, but an add-on's
 * blocking `webRequest.onHeadersReceived` listener may call `webRequest.getSecurityInfo` (protocol
 * version, cipher suite, key exchange group, signature scheme, …). The add-on POSTs what it learns to a
 * sink the runner listens on at 127.0.0.1 (a random port, written into the add-on when it is made), so
 * it never leaves the machine. MV2: a persistent background page keeps blocking listeners simple.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What getSecurityInfo said about one response, as the add-on forwards it. */
export interface FirefoxSecurityReport {
  url: string;
  requestId: string;
  timeStamp: number;
  cookieStoreId: string | null;
  info: Record<string, unknown>;
}

export interface SecuritySink {
  url: string;
  /** Reports received since the last drain. */
  drain(): FirefoxSecurityReport[];
  /** Waits until `predicate` holds for the reports received so far, or `ms` passed. */
  waitFor(predicate: (r: FirefoxSecurityReport[]) => boolean, ms: number): Promise<void>;
  close(): Promise<void>;
}

const MAX_REPORT_BYTES = 64 * 1024;

export async function startSecuritySink(): Promise<SecuritySink> {
  let reports: FirefoxSecurityReport[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/security') {
      res.writeHead(404).end();
      return;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
      if (body.length > MAX_REPORT_BYTES) req.destroy();
    });
    req.on('end', () => {
      try {
        const r = JSON.parse(body) as FirefoxSecurityReport;
        if (typeof r.url === 'string' && r.info && typeof r.info === 'object') reports.push(r);
      } catch {
        // A malformed report is dropped: the connection is then reported without security info.
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/security`,
    drain() {
      const out = reports;
      reports = [];
      return out;
    },
    async waitFor(predicate, ms) {
      const deadline = Date.now() + ms;
      while (!predicate(reports) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** Writes the unpacked add-on into `dir` (for browser.installExtension). */
export function writeHelperAddon(dir: string, sinkUrl: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify(
      {
        manifest_version: 2,
        name: 'tlsrum synthetic runner helper',
        version: '1.0',
        description: 'Reports webRequest.getSecurityInfo of https responses to the local tlsrum synthetic runner.',
        browser_specific_settings: { gecko: { id: 'synth-helper@tlsrum.invalid' } },
        permissions: ['webRequest', 'webRequestBlocking', '<all_urls>'],
        background: { scripts: ['background.js'] },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, 'background.js'),
    `'use strict';
const SINK = ${JSON.stringify(sinkUrl)};
const FIELDS = ['state', 'protocolVersion', 'cipherSuite', 'keaGroupName', 'signatureSchemeName', 'secretKeyLength',
  'usedEch', 'usedOcsp', 'usedDelegatedCredentials', 'usedPrivateDns', 'isExtendedValidation', 'hsts', 'hpkp', 'errorMessage'];
browser.webRequest.onHeadersReceived.addListener(async (d) => {
  try {
    // certificateChain: the chain Firefox built (leaf … root); rawDER: each certificate's bytes.
    const s = await browser.webRequest.getSecurityInfo(d.requestId, { certificateChain: true, rawDER: true });
    const info = {};
    for (const f of FIELDS) if (s[f] !== undefined) info[f] = s[f];
    info.certificates = Array.isArray(s.certificates) ? s.certificates.length : null;
    info.certificateDers = Array.isArray(s.certificates)
      ? s.certificates.map((c) => (Array.isArray(c.rawDER) ? btoa(String.fromCharCode(...c.rawDER)) : null))
      : null;
    fetch(SINK, { method: 'POST', body: JSON.stringify({ url: d.url, requestId: d.requestId, timeStamp: d.timeStamp,
      cookieStoreId: d.cookieStoreId || null, info }) }).catch(() => {});
  } catch (e) {
    // Never break the page: a response without security info is reported without it.
  }
  return {};
}, { urls: ['https://*/*'] }, ['blocking']);
`,
  );
  return dir;
}
