/**
 * `pnpm probe --json` against real servers whose configuration is known: the probe lab's nginx (TLS 1.2-only
 * RSA-4096 without resumption; TLS 1.3 ECDSA with tickets, 0-RTT, h3 advertised and a stapled OCSP response;
 * TLS 1.0/1.1 still on; tickets switchable), a Node TLS server for the post-quantum group, and the bad cases
 * (closed port, untrusted and expired certificates). Runs on Node 20 (OpenSSL 3.0: PQ not testable → null) and
 * Node ≥ 24 (OpenSSL 3.5: X25519MLKEM768 against the Node server, not against nginx's OpenSSL 3.0).
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProbeResult } from '@tlsrum/shared';
import { main } from '@tlsrum/probe/cli';
import { PROBE_SERVERS, startProbeLab, type ProbeLab } from '../lab/probe-servers';
import { freePort } from '../lab/ports';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/** OpenSSL ≥ 3.5 ships with Node ≥ 24: the only runtimes that can offer X25519MLKEM768. */
const PQ_TESTABLE = NODE_MAJOR >= 24;

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-probe-lab-'));
let lab: ProbeLab;
const nodeServers: Server[] = [];

async function nodeServer(cert: string, key: string): Promise<number> {
  const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (_req, res) => res.end('ok\n'));
  const port = await freePort();
  await new Promise<void>((res) => server.listen(port, '127.0.0.1', res));
  nodeServers.push(server);
  return port;
}

beforeAll(async () => {
  lab = await startProbeLab(dir);
}, 120_000);

afterAll(async () => {
  for (const s of nodeServers) await new Promise((r) => s.close(r));
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the command as a user would (same argument parsing and exit code) and parses its JSON. */
async function probeJson(url: string, extra: string[] = []): Promise<{ code: number; result: ProbeResult }> {
  let out = '';
  const resolve = Object.entries(lab.resolve).flatMap(([h, a]) => ['--resolve', `${h}=${a}`]);
  const code = await main(
    [url, '--json', '--runs', '2', '--timeout', '5000', ...resolve, ...extra],
    (s) => (out += s),
    () => {},
  );
  const result = JSON.parse(out) as ProbeResult;
  expect([...Value.Errors(ProbeResult, result)]).toEqual([]);
  return { code, result };
}

describe('probe against the probe lab nginx', () => {
  for (const spec of PROBE_SERVERS) {
    it(`${spec.id}: every fact matches the server's configuration`, async () => {
      const { code, result: r } = await probeJson(lab.url(spec.id), ['--ca', lab.ca.caCert]);
      expect(r.errors).toEqual([]);
      expect(code).toBe(0);
      const e = spec.expect;
      expect(r.host).toBe(spec.host);
      expect(r.tls.versions).toEqual(e.versions);
      const highest = e.versions['1.3'] ? '1.3' : '1.2';
      expect(r.tls.negotiated.version).toBe(highest);
      expect(r.tls.negotiated.alpn).toBe(e.alpn);
      expect(r.tls.negotiated.cipher).toMatch(highest === '1.3' ? /^TLS_AES_|^TLS_CHACHA20_/ : /^ECDHE-/);
      // Debian's nginx (OpenSSL 3.0) cannot do X25519MLKEM768 even when the probe offers it.
      expect(r.tls.negotiated.group).toBe('X25519');
      expect(r.pq.supported).toBe(PQ_TESTABLE ? false : null);
      const leafPem = readFileSync(
        spec.id === 't12-rsa4096' ? join(lab.ca.dir, 'rsa4096.pem') : lab.ecdsaLeaf.cert,
        'utf8',
      );
      const leaf = new X509Certificate(leafPem);
      expect(r.cert.chainLength).toBe(1);
      expect(r.cert.chainBytes).toBe(leaf.raw.length);
      expect(r.cert.leaf).toMatchObject({ ...e.leaf, issuer: 'tlsrum lab CA' });
      expect(r.cert.leaf!.daysToExpiry).toBe(Math.floor((Date.parse(leaf.validTo) - Date.now()) / 86_400_000));
      expect(r.ocsp.stapled).toBe(e.ocspStapled);
      expect(r.resumption).toEqual({ ...e.resumption, ticketLifetimeS: e.ticketLifetimeS });
      expect(r.earlyData.allowed).toBe(e.earlyData);
      expect(r.h3.advertised).toBe(e.h3);
      expect(r.h3.altSvc === null).toBe(!e.h3);
      for (const k of ['dns', 'tcp', 'tls', 'ttfb'] as const) expect(r.phases[k]).toBeTypeOf('number');
    });
  }

  it('readable output: phase table, then one sentence per finding', async () => {
    let out = '';
    const resolve = Object.entries(lab.resolve).flatMap(([h, a]) => ['--resolve', `${h}=${a}`]);
    const code = await main(
      [lab.url('t12-rsa4096'), '--runs', '1', '--ca', lab.ca.caCert, ...resolve],
      (s) => (out += s),
      () => {},
    );
    expect(code).toBe(0);
    expect(out).toMatch(/tls handshake\s+\d+\.\d ms/);
    expect(out).toMatch(/time to 1st byte\s+\d+\.\d ms/);
    expect(out).toContain('TLS 1.3 is off');
    expect(out).toContain('Session resumption does not work');
    expect(out).toContain('The certificate key is RSA-4096');
  });

  it('a refused version is a fact, not an error: TLS 1.3 against the TLS 1.2-only server', async () => {
    const { code, result } = await probeJson(lab.url('t12-rsa4096'), ['--ca', lab.ca.caCert]);
    expect(result.tls.versions['1.3']).toBe(false);
    expect(result.resumption['1.3']).toBeNull();
    expect(code).toBe(0);
  });

  it('several URLs give an array, in order', async () => {
    let out = '';
    const resolve = Object.entries(lab.resolve).flatMap(([h, a]) => ['--resolve', `${h}=${a}`]);
    const code = await main(
      [lab.url('legacy-t10'), lab.url('t13-ecdsa-ocsp'), '--json', '--runs', '1', '--ca', lab.ca.caCert, ...resolve],
      (s) => (out += s),
      () => {},
    );
    const arr = JSON.parse(out) as ProbeResult[];
    expect(code).toBe(0);
    expect(arr.map((r) => r.host)).toEqual(['legacy.probe.test', 'ocsp.probe.test']);
    for (const r of arr) expect(Value.Check(ProbeResult, r)).toBe(true);
  });
});

describe('probe: post-quantum arm (Node TLS server)', () => {
  it(PQ_TESTABLE ? 'negotiates X25519MLKEM768 on Node ≥ 24' : 'says null (not testable) on Node 20', async () => {
    const port = await nodeServer(lab.ecdsaLeaf.cert, lab.ecdsaLeaf.key);
    const { code, result } = await probeJson(`https://pq.probe.test:${port}/`, ['--ca', lab.ca.caCert]);
    expect(result.errors).toEqual([]);
    expect(code).toBe(0);
    expect(result.tls.negotiated.version).toBe('1.3');
    if (PQ_TESTABLE) {
      expect(result.tls.negotiated.group).toBe('X25519MLKEM768');
      expect(result.pq.supported).toBe(true);
    } else {
      expect(result.tls.negotiated.group).toBe('X25519');
      expect(result.pq.supported).toBeNull();
    }
  });
});

describe('probe: bad input gives a clear finding, never a crash', () => {
  it('untrusted certificate (lab CA not given): an error naming the reason, every other fact still measured', async () => {
    const { code, result } = await probeJson(lab.url('t13-ecdsa-ocsp'));
    expect(code).toBe(1);
    expect(result.errors).toEqual([
      expect.stringMatching(/^certificate: the certificate is issued by an authority this client does not trust/),
    ]);
    expect(result.tls.versions['1.3']).toBe(true);
    expect(result.ocsp.stapled).toBe(true);
  });

  it('--insecure: the same untrusted certificate is not an error', async () => {
    const { code, result } = await probeJson(lab.url('t13-ecdsa-ocsp'), ['--insecure']);
    expect(result.errors).toEqual([]);
    expect(code).toBe(0);
  });

  it('expired certificate: an error saying so, and negative days to expiry', async () => {
    const port = await nodeServer(lab.expiredLeaf.cert, lab.expiredLeaf.key);
    const { code, result } = await probeJson(`https://expired.probe.test:${port}/`, ['--ca', lab.ca.caCert]);
    expect(code).toBe(1);
    expect(result.errors).toEqual(['certificate: the certificate has expired']);
    expect(result.cert.leaf!.daysToExpiry).toBeLessThan(0);
    let out = '';
    await main(
      [
        `https://expired.probe.test:${port}/`,
        '--runs',
        '1',
        '--ca',
        lab.ca.caCert,
        '--resolve',
        'expired.probe.test=127.0.0.1',
      ],
      (s) => (out += s),
      () => {},
    );
    expect(out).toMatch(/The certificate expired \d+ day\(s\) ago/);
  });

  it('unreachable host (nothing listens): tcp error, facts unknown (null), exit 1', async () => {
    const port = await freePort();
    const { code, result } = await probeJson(`https://pq.probe.test:${port}/`);
    expect(code).toBe(1);
    expect(result.errors).toEqual([`tcp: cannot connect to 127.0.0.1:${port} (ECONNREFUSED)`]);
    expect(result.tls.versions).toEqual({ '1.0': null, '1.1': null, '1.2': null, '1.3': null });
    expect(result.phases).toEqual({ dns: null, tcp: null, tls: null, ttfb: null });
    expect(result.cert).toEqual({ chainLength: 0, chainBytes: 0, leaf: null });
  });
});
