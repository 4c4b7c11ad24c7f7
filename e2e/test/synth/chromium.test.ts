/**
 * The runner with real Chromium against a real nginx: what it reports must be what nginx negotiated.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { HandshakeRecord } from '@tlsrum/shared';
import { runSynthetic, type SyntheticOptions, type VisitResult } from '@tlsrum/synth';
import { startNginx } from './nginx';
import { labOptions, useTestServer } from './setup';
import { pemChainBytes } from '../../lab/crypto-lab';
import { freePort } from '../../lab/ports';
import { startSocksProxy } from '../../lab/socks-proxy';

const lab = useTestServer(startNginx);
const base = (): Omit<SyntheticOptions, 'urls'> => ({ browser: 'chromium', ...labOptions(lab.certs) });

/** nginx's own word for a connection: "TLSv1.3 r 12" → version, resumed, connection number. */
function serverSays(v: VisitResult, host: string) {
  const c = v.connections.find((x) => x.host === host && x.kind === 'new');
  const h = c?.responseHeaders['x-tls'];
  if (!c || !h) return null;
  const [proto, reused, conn] = h.split(' ');
  return {
    c,
    version: proto === 'TLSv1.3' ? '1.3' : proto === 'TLSv1.2' ? '1.2' : null,
    resumed: reused === 'r',
    conn: Number(conn),
  };
}

describe('synthetic runner, Chromium', () => {
  it('cold visits: full handshakes, exact TLS 1.3 details, TAO-less cross-origin counted but not measured', async () => {
    const r = await runSynthetic({
      ...base(),
      urls: [`https://a.synth.test:${lab.server.t13}/page?secret=1`],
      mode: 'cold',
      runs: 2,
    });
    expect(r.failedVisits).toBe(0);
    expect(r.browser.name).toBe('chromium');
    expect(r.browser.major).toBeGreaterThan(100);
    expect(r.visits).toHaveLength(2);
    for (const v of r.visits) {
      expect(v.ok).toBe(true);
      // a. (navigation; its script reuses the connection), c. (TAO): measured; b. (no TAO): opaque.
      expect(v.counts.opaque).toBe(1);
      expect(v.connections.find((c) => c.host === 'b.synth.test')?.kind).toBe('opaque');
      expect(v.connections.find((c) => c.host === 'b.synth.test')?.record).toBeNull();
      expect(v.records.map((x) => x.entryType).sort()).toEqual(['navigation', 'resource']);
      for (const host of ['a.synth.test', 'c.synth.test']) {
        const truth = serverSays(v, host);
        expect(truth, host).not.toBeNull();
        const rec = truth!.c.record!;
        expect(rec.tlsVersion).toBe(truth!.version);
        expect(rec.tlsVersion).toBe('1.3');
        expect(rec.tlsVersionSource).toBe('observed');
        expect(rec.resumed).toBe(false);
        expect(truth!.resumed).toBe(false);
        expect(rec.resumedSource).toBe('observed');
        expect(rec.cipher).toMatch(/^TLS_(AES_(128|256)_GCM_SHA(256|384)|CHACHA20_POLY1305_SHA256)$/);
        expect(rec.group).toBe('x25519');
        expect(rec.signatureScheme).toBe('ecdsa_secp256r1_sha256');
        // The chain as sent (this server sends its root too), and the leaf's key, from the NetLog's DER.
        expect(rec.certChainLength).toBe(2);
        expect(rec.certChainBytes).toBe(pemChainBytes(lab.certs.chainPem).reduce((a, b) => a + b, 0));
        expect(rec).toMatchObject({ certKeyType: 'ecdsa', certKeyBits: 256, ocspStapled: false, ech: false });
        expect(rec.protocol).toBe('h2');
        expect(rec.source).toBe('synthetic');
        expect(truth!.c.netlog?.isResumed).toBe(false);
      }
    }
    for (const rec of r.records) {
      expect(Value.Check(HandshakeRecord, rec), JSON.stringify([...Value.Errors(HandshakeRecord, rec)])).toBe(true);
      // The site is the page's hostname; nothing of the URL beyond it.
      expect(rec.site).toBe('a.synth.test');
      expect(JSON.stringify(rec)).not.toMatch(/secret|\/page|synth\.test:\d/);
    }
    // One token per run of the runner.
    expect(new Set(r.records.map((x) => x.clientToken)).size).toBe(1);
  });

  it('warm visits: a new connection each time that resumes (NetLog is_resumed = nginx $ssl_session_reused)', async () => {
    const r = await runSynthetic({
      ...base(),
      urls: [`https://a.synth.test:${lab.server.t13}/page`],
      mode: 'warm',
      runs: 2,
    });
    expect(r.failedVisits).toBe(0);
    expect(r.visits.map((v) => [v.run, v.prime])).toEqual([
      [-1, true],
      [0, false],
      [1, false],
    ]);
    const conns = new Set<number>();
    for (const v of r.visits) {
      const truth = serverSays(v, 'a.synth.test')!;
      expect(truth).not.toBeNull();
      conns.add(truth.conn);
      expect(truth.c.record!.resumed).toBe(truth.resumed);
      expect(truth.c.record!.resumed).toBe(!v.prime);
      expect(truth.c.record!.resumedSource).toBe('observed');
    }
    // Each visit opened its own connection on the server.
    expect(conns.size).toBe(3);
  });

  it('TLS 1.2: the version and the one cipher suite nginx allows, resumed on warm visits', async () => {
    const r = await runSynthetic({
      ...base(),
      urls: [`https://a.synth.test:${lab.server.t12}/page`],
      mode: 'warm',
      runs: 1,
    });
    expect(r.failedVisits).toBe(0);
    const [prime, warm] = r.visits;
    for (const v of [prime!, warm!]) {
      const truth = serverSays(v, 'a.synth.test')!;
      expect(truth.version).toBe('1.2');
      const rec = truth.c.record!;
      expect(rec.tlsVersion).toBe('1.2');
      expect(rec.cipher).toBe('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
      expect(rec.resumed).toBe(truth.resumed);
      expect(rec.resumed).toBe(v === warm);
    }
    // The server's access log agrees line by line with what the records say.
    const log = lab.server.accessLog().filter((l) => l.includes('TLSv1.2') && l.startsWith('a.synth.test'));
    expect(log.some((l) => l.includes('ECDHE-ECDSA-AES128-GCM-SHA256 r '))).toBe(true);
    expect(log.some((l) => l.includes('ECDHE-ECDSA-AES128-GCM-SHA256 . '))).toBe(true);
  });

  it('through a delaying SOCKS5 proxy (RTT emulation): the NetLog still joins, and the TCP phase carries the RTT', async () => {
    const rttMs = 40;
    const proxy = await startSocksProxy({
      profile: 'test',
      rttMs,
      sourceAddress: '127.0.0.1',
      resolve: (host) => (host.endsWith('.synth.test') ? '127.0.0.1' : null),
      log: () => {},
    });
    try {
      const r = await runSynthetic({
        ...base(),
        urls: [`https://a.synth.test:${lab.server.t13}/page`],
        mode: 'warm',
        runs: 1,
        proxy: `socks5://127.0.0.1:${proxy.port}`,
      });
      expect(r.failedVisits).toBe(0);
      for (const v of r.visits) {
        const truth = serverSays(v, 'a.synth.test')!;
        expect(truth.c.netlog?.remoteAddress).toBe(`127.0.0.1:${proxy.port}`);
        expect(truth.c.record!.resumed).toBe(truth.resumed);
        expect(truth.c.record!.resumedSource).toBe('observed');
        // The proxy holds the CONNECT reply for one RTT: a lower bound, not a timing measurement.
        expect(truth.c.record!.tcp).toBeGreaterThanOrEqual(rttMs - 1);
      }
      expect(r.visits.map((v) => serverSays(v, 'a.synth.test')!.resumed)).toEqual([false, true]);
    } finally {
      await proxy.close();
    }
  });

  it('an unreachable URL is a failed visit with a clear reason, not an exception', async () => {
    const closed = await freePort();
    const r = await runSynthetic({
      ...base(),
      urls: [`https://a.synth.test:${closed}/`],
      mode: 'cold',
      runs: 1,
      visitTimeoutMs: 10_000,
    });
    expect(r.failedVisits).toBe(1);
    expect(r.visits[0]!.ok).toBe(false);
    expect(r.visits[0]!.error).toMatch(/unreachable: ERR_CONNECTION_REFUSED/);
    expect(r.records).toEqual([]);
  });

  it('--ca makes Chromium trust the private CA for real: a server that sends only its leaf is visited', async () => {
    // openssl s_server sends exactly the certificate it is given (the leaf, no chain), like most servers
    // configured with a leaf signed by an internal CA. Listing the CA's SPKI cannot match it.
    const port = await freePort();
    const server = spawn(
      'openssl',
      [
        's_server',
        '-accept',
        `127.0.0.1:${port}`,
        '-cert',
        lab.certs.leafPem,
        '-key',
        lab.certs.leafKey,
        '-www',
        '-quiet',
      ],
      { stdio: 'ignore' },
    );
    try {
      await waitForPort(port);
      const url = `https://a.synth.test:${port}/`;
      const r = await runSynthetic({ ...base(), urls: [url], mode: 'cold', runs: 1 });
      expect(r.visits[0]!.error).toBeUndefined();
      expect(r.failedVisits).toBe(0);
      const nav = r.records.find((x) => x.entryType === 'navigation')!;
      expect(nav).toMatchObject({ site: 'a.synth.test', certChainLength: 1 });

      // Without --ca the same visit fails, and the reason says what to pass.
      const without = await runSynthetic({ ...base(), caCertPath: undefined, urls: [url], mode: 'cold', runs: 1 });
      expect(without.failedVisits).toBe(1);
      expect(without.visits[0]!.error).toMatch(
        /ERR_CERT_AUTHORITY_INVALID \(certificate not trusted: pass --ca with the CA certificate that signed it/,
      );
    } finally {
      server.kill();
    }
  });
});

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}
