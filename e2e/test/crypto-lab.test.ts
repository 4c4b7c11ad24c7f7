/**
 * The crypto-lens key-exchange arms against a real Node ≥ 24 client (OpenSSL 3.5, started as a child
 * process whatever Node runs the tests): `pq-hybrid` negotiates X25519MLKEM768 and refuses a client
 * offering X25519 only; `pq-x25519` negotiates X25519 even when the client offers the hybrid first. And
 * the truth the accuracy report reads: each server's log line names the connection of the response's
 * X-Lab-Conn header with the group it used. (Certificates, chains and stapling: probe-main-lab.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTruth } from '../accuracy/truth';
import { startLab, type RunningLab } from '../lab/lab';
import { requireNode24 } from '../lab/node24';
import { RTT_PROFILES } from '../lab/profiles';
import { hostOf } from '../lab/servers';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-crypto-lab-'));
let lab: RunningLab;

beforeAll(async () => {
  lab = await startLab({ dir, profiles: RTT_PROFILES.slice(0, 1), quic: false });
}, 120_000);

afterAll(async () => {
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

// One HTTP/2 request from Node 24: the negotiated group, and the response's X-Lab-Conn, or the error.
const CLIENT = `
import { connect } from 'node:http2';
import { readFileSync } from 'node:fs';
const [port, host, ca, curve] = process.argv.slice(1);
const s = connect('https://' + host + ':' + port, {
  host: '127.0.0.1', servername: host, ca: readFileSync(ca), ...(curve ? { ecdhCurve: curve } : {}),
});
s.on('error', (e) => { console.log(JSON.stringify({ error: e.code || e.message })); process.exit(0); });
s.on('connect', () => {
  const group = s.socket.getEphemeralKeyInfo().name;
  const req = s.request({ ':path': '/p/x.html' });
  req.on('response', (h) => { console.log(JSON.stringify({ group, labConn: h['x-lab-conn'] })); s.close(); });
  req.end();
});
`;

function node24Request(
  port: number,
  host: string,
  curve?: string,
): { group?: string; labConn?: string; error?: string } {
  const out = execFileSync(
    requireNode24(),
    ['--input-type=module', '-e', CLIENT, String(port), host, lab.ca.caCert, ...(curve ? [curve] : [])],
    {
      encoding: 'utf8',
      timeout: 20_000,
    },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as { group?: string; labConn?: string; error?: string };
}

describe('crypto lab: key-exchange arms (Node ≥ 24 servers)', () => {
  it('pq-hybrid negotiates X25519MLKEM768 and logs it for the connection', async () => {
    const r = node24Request(lab.ports['pq-hybrid'], hostOf('a', 'pq-hybrid'));
    expect(r.group).toBe('X25519MLKEM768');
    const [addr, port, conn] = r.labConn!.split(' ');
    await new Promise((res) => setTimeout(res, 200));
    const t = readTruth(lab.logs.dir).lookup(
      'pq-hybrid',
      { addr: addr!, port: Number(port), conn: Number(conn) },
      Date.now(),
    );
    expect(t).toMatchObject({
      server: 'pq-hybrid',
      tlsVersion: '1.3',
      group: 'X25519MLKEM768',
      alpn: 'h2',
      from: 'node',
    });
    expect(t?.cipher).toMatch(/^TLS_/);
  });

  it('pq-hybrid refuses a client offering X25519 only', () => {
    expect(node24Request(lab.ports['pq-hybrid'], hostOf('a', 'pq-hybrid'), 'X25519').error).toBeTruthy();
  });

  it('pq-x25519 negotiates X25519 though the client offers the hybrid first', async () => {
    const r = node24Request(lab.ports['pq-x25519'], hostOf('a', 'pq-x25519'));
    expect(r.group).toBe('X25519');
    const [addr, port, conn] = r.labConn!.split(' ');
    await new Promise((res) => setTimeout(res, 200));
    expect(
      readTruth(lab.logs.dir).lookup('pq-x25519', { addr: addr!, port: Number(port), conn: Number(conn) }, Date.now()),
    ).toMatchObject({ group: 'X25519', from: 'node' });
  });

  it('the nginx crypto servers log their group per connection', async () => {
    const r = node24Request(lab.ports.rsa4096, hostOf('a', 'rsa4096'));
    // nginx's OpenSSL 3.0 cannot do the hybrid: it picks X25519 from the client's shares.
    expect(r.group).toBe('X25519');
    const [addr, port, conn] = r.labConn!.split(' ');
    await new Promise((res) => setTimeout(res, 200));
    expect(
      readTruth(lab.logs.dir).lookup('rsa4096', { addr: addr!, port: Number(port), conn: Number(conn) }, Date.now()),
    ).toMatchObject({ group: 'X25519', from: 'nginx-http' });
  });
});
