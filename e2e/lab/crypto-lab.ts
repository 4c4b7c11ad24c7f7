/**
 * Starts the crypto-lens servers of crypto-servers.ts inside the lab: their certificates (under the lab
 * CA, with intermediates for the longer chains and an OCSP response the CA signs), their nginx blocks,
 * and the Node ≥ 24 process serving the key-exchange arms.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { issueIntermediate, issueLeaf, ocspResponse } from './ca';
import { stderrTail } from './children';
import { CRYPTO_SERVERS, type CryptoServerId } from './crypto-servers';
import { commonLocation } from './nginx-conf';

/** The files one crypto server serves, and what is measured from them. */
export interface CryptoFiles {
  /** PEM: leaf, then the intermediates it sends. */
  chain: string;
  key: string;
  spki: string;
  /** DER bytes of the certificates sent (the record's certChainBytes). */
  chainBytes: number;
  ocsp?: string;
}

/** DER bytes of every certificate in a PEM file. */
export function pemChainBytes(pemFile: string): number[] {
  const pem = readFileSync(pemFile, 'utf8');
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map(
    (m) => new X509Certificate(m[0]).raw.length,
  );
}

/** Leaves (and intermediates) for every crypto server, signed under the lab CA in `caDir`. */
export function issueCryptoCerts(caDir: string): Record<CryptoServerId, CryptoFiles> {
  issueIntermediate(caDir, 'int1');
  issueIntermediate(caDir, 'int2', 'int1');
  const out = {} as Record<CryptoServerId, CryptoFiles>;
  for (const s of CRYPTO_SERVERS) {
    const names = [`*.${s.id}.lab.test`];
    const c = s.crypto;
    // chain2: leaf ← int1 ← CA; chain3: leaf ← int2 ← int1 ← CA.
    const issuer = c.chainDepth === 3 ? 'int2' : c.chainDepth === 2 ? 'int1' : 'ca';
    const leaf = issueLeaf(caDir, `leaf-${s.id}`, names, {
      key: c.keyType === 'rsa' ? `rsa:${c.keyBits}` : 'ec',
      issuer,
    });
    const intermediates = c.chainDepth === 3 ? ['int2', 'int1'] : c.chainDepth === 2 ? ['int1'] : [];
    const chain = join(caDir, `chain-${s.id}.pem`);
    writeFileSync(
      chain,
      [leaf.cert, ...intermediates.map((i) => join(caDir, `${i}.pem`))].map((f) => readFileSync(f, 'utf8')).join(''),
    );
    const bytes = pemChainBytes(chain);
    if (bytes.length !== c.chainDepth)
      throw new Error(`${s.id}: chain has ${bytes.length} certificates, expected ${c.chainDepth}`);
    out[s.id] = {
      chain,
      key: leaf.key,
      spki: leaf.spki,
      chainBytes: bytes.reduce((a, b) => a + b, 0),
      ...(c.ocspStapled ? { ocsp: ocspResponse(caDir, leaf, `ocsp-${s.id}`) } : {}),
    };
  }
  return out;
}

/** nginx `server` blocks for the crypto servers nginx serves (the others run in node-tls-server.mjs). */
export function renderCryptoNginxServers(
  dir: string,
  www: string,
  files: Record<CryptoServerId, CryptoFiles>,
  ports: Record<CryptoServerId, number>,
): string[] {
  return CRYPTO_SERVERS.filter((s) => s.software === 'nginx').map((s) => {
    const f = files[s.id];
    const lines = [
      `listen 127.0.0.1:${ports[s.id]} ssl http2;`,
      `server_name ${['a', 'b', 'c'].map((p) => `${p}.${s.id}.lab.test`).join(' ')};`,
      'ssl_protocols TLSv1.3;',
      `ssl_certificate ${f.chain};`,
      `ssl_certificate_key ${f.key};`,
      `ssl_ecdh_curve ${s.crypto.groups.join(':')};`,
      `ssl_session_cache shared:${s.id.replace(/-/g, '')}:1m;`,
      'ssl_session_tickets on;',
      ...(f.ocsp ? ['ssl_stapling on;', `ssl_stapling_file ${f.ocsp};`] : []),
      `access_log ${dir}/logs/${s.id}.log labjson;`,
      'location / {',
      ...commonLocation(www, true).map((l) => `  ${l}`),
      '}',
    ];
    return ['  server {', ...lines.map((l) => `    ${l}`), '  }'].join('\n');
  });
}

export interface NodeTlsServers {
  child: ChildProcess;
  openssl: string;
}

/** Starts node-tls-server.mjs under `node` (≥ 24) for the crypto servers whose software is `node`. */
export async function startNodeTlsServers(
  node: string,
  dir: string,
  www: string,
  files: Record<CryptoServerId, CryptoFiles>,
  ports: Record<CryptoServerId, number>,
): Promise<NodeTlsServers> {
  const servers = CRYPTO_SERVERS.filter((s) => s.software === 'node').map((s) => ({
    id: s.id,
    port: ports[s.id],
    cert: files[s.id].chain,
    key: files[s.id].key,
    group: s.crypto.groups.join(':'),
    www,
    log: join(dir, 'logs', `${s.id}.log`),
  }));
  const config = join(dir, 'node-tls-servers.json');
  writeFileSync(config, JSON.stringify({ servers }, null, 2));
  const child = spawn(node, [fileURLToPath(new URL('node-tls-server.mjs', import.meta.url)), config], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const err = stderrTail(child);
  const ready = await new Promise<{ openssl: string }>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`node TLS servers not ready within 10 s: ${err()}`)), 10_000);
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(t);
      try {
        res(JSON.parse(line) as { openssl: string });
      } catch {
        rej(new Error(`node TLS servers: unexpected output ${line} ${err()}`));
      }
    });
    child.once('exit', (code) => (clearTimeout(t), rej(new Error(`node TLS servers exited (${code}): ${err()}`))));
  });
  return { child, openssl: ready.openssl };
}
