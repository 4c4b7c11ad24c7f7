/**
 * The lab against real nginx, Caddy and the delaying proxies: what each server negotiates (checked with
 * Node's TLS client offering h2 + http/1.1 like a browser), the proxy's injected delay (from its own log),
 * and a clean stop.
 */
import { connect as tcpConnect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive, startLab, type RunningLab } from '../lab/lab';
import { RTT_PROFILES } from '../lab/profiles';
import type { CryptoServerId } from '../lab/crypto-servers';
import { hostOf, type ServerId } from '../lab/servers';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-lab-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function handshake(port: number, host: string, ca: string, session?: Buffer) {
  return new Promise<{ alpn: string | false | null; version: string | null; reused: boolean; session?: Buffer }>(
    (res, rej) => {
      let session2: Buffer | undefined;
      const s = tlsConnect({
        host: '127.0.0.1',
        port,
        servername: host,
        ca: readFileSync(ca),
        ALPNProtocols: ['h2', 'http/1.1'],
        ...(session ? { session } : {}),
      });
      s.on('session', (b: Buffer) => (session2 = b));
      s.once('secureConnect', () => {
        const out = { alpn: s.alpnProtocol, version: s.getProtocol(), reused: s.isSessionReused() };
        // TLS 1.3 tickets arrive after the handshake: wait briefly for one.
        setTimeout(() => {
          s.end();
          res({ ...out, ...(session2 ? { session: session2 } : {}) });
        }, 100);
      });
      s.once('error', rej);
    },
  );
}

/** SOCKS5 CONNECT by name through the lab proxy; resolves with the time the CONNECT reply took. */
function socksConnect(proxyPort: number, host: string, port: number) {
  return new Promise<number>((res, rej) => {
    const s = tcpConnect(proxyPort, '127.0.0.1');
    let t0 = 0;
    let stage = 0;
    s.on('connect', () => s.write(Buffer.from([5, 1, 0])));
    s.on('data', (b: Buffer) => {
      if (stage === 0) {
        expect([...b]).toEqual([5, 0]);
        stage = 1;
        const name = Buffer.from(host);
        const req = Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.from([port >> 8, port & 255])]);
        t0 = performance.now();
        s.write(req);
      } else {
        const ms = performance.now() - t0;
        if (b[1] !== 0) rej(new Error(`SOCKS reply ${b[1]}`));
        s.end();
        s.once('close', () => res(ms));
      }
    });
    s.once('error', rej);
  });
}

async function checkLab(lab: RunningLab) {
  const expected: Record<
    Exclude<ServerId, 'h3' | CryptoServerId>,
    { alpn: string | false | null; version: string; resumes: boolean }
  > = {
    't12-noalpn': { alpn: false, version: 'TLSv1.2', resumes: true },
    't12-h2': { alpn: 'h2', version: 'TLSv1.2', resumes: true },
    't13-h2': { alpn: 'h2', version: 'TLSv1.3', resumes: true },
    't13-notix': { alpn: 'h2', version: 'TLSv1.3', resumes: false },
    't13-0rtt': { alpn: 'h2', version: 'TLSv1.3', resumes: true },
  };
  for (const [id, want] of Object.entries(expected) as [
    Exclude<ServerId, 'h3' | CryptoServerId>,
    (typeof expected)['t12-h2'],
  ][]) {
    const host = hostOf('a', id);
    const first = await handshake(lab.ports[id], host, lab.ca.caCert);
    expect({ id, alpn: first.alpn, version: first.version, reused: first.reused }).toEqual({
      id,
      alpn: want.alpn,
      version: want.version,
      reused: false,
    });
    if (want.resumes) expect({ id, session: !!first.session }).toEqual({ id, session: true });
    const second = await handshake(lab.ports[id], host, lab.ca.caCert, first.session);
    expect({ id, reused: second.reused }).toEqual({ id, reused: want.resumes });
  }
  // Caddy: h2 over TCP (its h3 side is exercised by the browser tests).
  const caddy = await handshake(lab.ports.h3, hostOf('a', 'h3'), lab.ca.caCert);
  expect(caddy).toMatchObject({ alpn: 'h2', version: 'TLSv1.3' });

  // The proxy holds the CONNECT reply one RTT and logs the delays it applied.
  const metro = RTT_PROFILES.find((p) => p.name === 'metro')!;
  const ms = await socksConnect(lab.socks.metro!, hostOf('a', 't13-h2'), lab.ports['t13-h2']);
  expect(ms).toBeGreaterThanOrEqual(metro.rttMs - 0.5);
  await new Promise((r) => setTimeout(r, 200));
  const lines = readFileSync(lab.logs.proxy, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const line = lines.find((l) => l.profile === 'metro' && l.host === hostOf('a', 't13-h2'));
  expect(line).toMatchObject({ rttMs: 20, source: metro.sourceAddress });
  expect(line.connectHeldMs).toBeGreaterThanOrEqual(20);
  // Hosts outside the lab are refused.
  await expect(socksConnect(lab.socks.metro!, 'example.com', 443)).rejects.toThrow(/SOCKS reply/);
  expect(readFileSync(lab.logs.geoipOverrides, 'utf8')).toContain(`${metro.sourceAddress}/32 DE`);
}

const refused = (port: number) =>
  new Promise<boolean>((res) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), res(false)));
    s.once('error', () => res(true));
  });

describe('lab', () => {
  it('starts, negotiates what each server promises, and stops cleanly', async () => {
    // Twice in a row through the CLI: lab-cli.test.ts.
    const lab = await startLab({ dir });
    try {
      await checkLab(lab);
    } finally {
      await lab.stop();
    }
    for (const [name, pid] of Object.entries(lab.pids))
      expect({ name, alive: isAlive(pid) }).toEqual({ name, alive: false });
    for (const port of [...Object.values(lab.ports), ...Object.values(lab.socks)])
      expect(await refused(port)).toBe(true);
    // The only crash nginx ever had here was a worker SIGSEGV: make sure none happened.
    expect(readFileSync(join(dir, 'logs', 'nginx-error.log'), 'utf8')).not.toMatch(/signal \d+/);
  });
});
