/**
 * Self-service registration end to end, against real servers the test starts: an HTTPS server with a lab
 * certificate (reached through the operator's allow-list, PROBE_CONNECT_TO) and a DNS server answering A,
 * AAAA and TXT questions (DNS_SERVERS). A site owner claims, publishes, verifies, gets a token once and
 * reads with it; every bad input is refused with its reason and registers nothing; a name resolving to a
 * non-public address is refused by the ownership check and by the probe; failed re-checks revoke.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPublicHttps } from '../../src/platform/net/public-connect';
import { ProbeScheduler } from '../../src/probes/scheduler';
import { listProbes } from '../../src/probes/store';
import { startDnsServer, type DnsServer } from '../support/dns-server';
import { makeBatch, makeRecords, postBatch, removeDir, startApp, tempDir, type TestApp } from '../support/helpers';

const ADMIN = 'claims-test-admin-token-0123456789';
const PUBLIC_IP = '93.184.215.14';
const LAB = [
  'claim.lab.test',
  'samehost.lab.test',
  'redirect.lab.test',
  'big.lab.test',
  'slow.lab.test',
  'badcert.other.test',
];

const certDir = tempDir('tlsrum-claims-certs-');
let https: Server;
let port: number;
let dns: DnsServer;
let caPem: string;
/** The well-known file each host serves (absent: 404). */
const files = new Map<string, string>();
/** The SNI names of the TLS connections the server accepted. */
const connections: string[] = [];

function makeCerts(): { cert: string; key: string; ca: string } {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: certDir, stdio: ['ignore', 'pipe', 'pipe'] });
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key']);
  run([
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-sha256',
    '-days',
    '2',
    '-subj',
    '/CN=claims test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
    '-out',
    'ca.pem',
  ]);
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'leaf.key']);
  run(['req', '-new', '-key', 'leaf.key', '-subj', '/CN=claim.lab.test', '-out', 'leaf.csr']);
  // badcert.other.test is deliberately not named: its check must fail on the certificate.
  writeFileSync(
    join(certDir, 'leaf.ext'),
    'basicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:*.lab.test,DNS:loop.example.org,DNS:rebind.example.org\n',
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
    '2',
    '-sha256',
    '-extfile',
    'leaf.ext',
    '-out',
    'leaf.pem',
  ]);
  return {
    cert: readFileSync(join(certDir, 'leaf.pem'), 'utf8'),
    key: readFileSync(join(certDir, 'leaf.key'), 'utf8'),
    ca: join(certDir, 'ca.pem'),
  };
}

async function startLabServer(): Promise<void> {
  const { cert, key, ca } = makeCerts();
  caPem = readFileSync(ca, 'utf8');
  https = createServer({ cert, key }, (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (host === 'slow.lab.test') return; // never answers
    if (host === 'redirect.lab.test')
      return res.writeHead(302, { location: 'https://elsewhere.example.net/.well-known/tlsrum.txt' }).end();
    if (host === 'samehost.lab.test' && req.url === '/.well-known/tlsrum.txt')
      return res.writeHead(301, { location: '/proofs/tlsrum.txt' }).end();
    if (host === 'big.lab.test') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const line = Buffer.alloc(1024, 'x');
      for (let i = 0; i < 1024; i++) res.write(line);
      return res.end();
    }
    const path = host === 'samehost.lab.test' ? '/proofs/tlsrum.txt' : '/.well-known/tlsrum.txt';
    const body = files.get(host);
    if (req.url !== path || body === undefined) return res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  https.on('secureConnection', (s: TLSSocket) =>
    connections.push((s as TLSSocket & { servername?: string }).servername ?? ''),
  );
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
  port = (https.address() as { port: number }).port;
}

let nextIp = 1;
/** A fresh claimant address: each test's requests count against their own hourly limit. */
const freshIp = () => `198.51.100.${nextIp++}`;

const claim = (t: TestApp, hostname: unknown, ip = freshIp()) =>
  t.app.inject({ method: 'POST', url: '/v1/sites/claims', payload: { hostname }, remoteAddress: ip });
const verify = (t: TestApp, hostname: string, ip = freshIp(), method?: string) =>
  t.app.inject({
    method: 'POST',
    url: `/v1/sites/claims/${encodeURIComponent(hostname)}/verify${method ? `?method=${method}` : ''}`,
    remoteAddress: ip,
  });
const registered = async (t: TestApp) => (await t.app.inject({ url: '/v1/sites' })).json<{ sites: string[] }>().sites;
async function claimRows(t: TestApp, hostname: string): Promise<Record<string, unknown>[]> {
  const rs = await t.app.store.query.query({
    query: 'SELECT * FROM site_claims FINAL WHERE hostname = {h:String}',
    query_params: { h: hostname },
    format: 'JSONEachRow',
  });
  return rs.json();
}
const readWith = (t: TestApp, site: string, token: string) =>
  t.app.inject({ url: `/v1/compare?site=${site}`, headers: { authorization: `Bearer ${token}` } });

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ADMIN_TOKEN: ADMIN,
    DNS_SERVERS: `127.0.0.1:${dns.port}`,
    PROBE_CONNECT_TO: LAB.map((h) => `${h}:443:127.0.0.1:${port}`).join(','),
    PROBE_CA_FILE: join(certDir, 'ca.pem'),
    CLAIM_CHECK_TIMEOUT_MS: '1500',
    CLAIM_RATE_LIMIT_PER_HOUR: '5',
    CLAIM_RECHECK_INTERVAL_MS: '0',
    ...extra,
  };
}

beforeAll(async () => {
  await startLabServer();
  dns = await startDnsServer(
    new Map([
      ['dns-owner.example.org', { A: [PUBLIC_IP] }],
      ['rebind.example.org', { A: [PUBLIC_IP] }],
      ['rate.example.org', { A: [PUBLIC_IP] }],
      ['loop.example.org', { A: ['127.0.0.1'] }],
      ['ten.example.org', { A: ['10.1.2.3'] }],
      ['cgnat.example.org', { A: ['100.64.0.1'] }],
      ['mapped.example.org', { AAAA: ['::ffff:192.168.1.1'] }],
      ['nat64.example.org', { AAAA: ['64:ff9b::7f00:1'] }],
      ['mixed.example.org', { A: [PUBLIC_IP, '169.254.169.254'] }],
      ['silent.example.org', { silent: true }],
    ]),
  );
}, 60_000);

afterAll(async () => {
  await new Promise((r) => https?.close(r));
  https?.closeAllConnections();
  await dns?.close();
  removeDir(certDir);
});

describe('self-service registration', () => {
  let t: TestApp;
  const tokens = new Map<string, string>();
  beforeAll(async () => {
    t = await startApp(env());
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    if (t) removeDir(t.dataDir);
  });

  // First, while no other site is registered: a cycle probes every registered site.
  it("the collector's own probe scheduler refuses a registered site resolving to 127.0.0.1", async () => {
    const reg = await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname: 'loop.example.org' },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(reg.statusCode).toBe(201);
    const probed = await t.app.probes.runCycle();
    const loop = probed.find((p) => p.hostname === 'loop.example.org')!;
    expect(loop.outcome.result.errors).toEqual([
      expect.stringMatching(/^dns: loop\.example\.org resolves to 127\.0\.0\.1, a loopback address/),
    ]);
    await t.app.inject({
      method: 'DELETE',
      url: '/v1/sites/loop.example.org',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
  });

  it('claim → publish the file → verify gives a read token once, stored hashed, that reads the site', async () => {
    const c = await claim(t, 'Claim.Lab.Test');
    expect(c.statusCode).toBe(201);
    const body = c.json<{
      hostname: string;
      challenge: string;
      wellKnownUrl: string;
      dnsName: string;
      expiresAt: string;
    }>();
    expect(Object.keys(body).sort()).toEqual(['challenge', 'dnsName', 'expiresAt', 'hostname', 'wellKnownUrl']);
    expect(body.hostname).toBe('claim.lab.test');
    // 192 random bits, base64url.
    expect(body.challenge).toMatch(/^tlsrum-site-verification=[A-Za-z0-9_-]{32}$/);
    expect(body.wellKnownUrl).toBe('https://claim.lab.test/.well-known/tlsrum.txt');
    expect(body.dnsName).toBe('_tlsrum.claim.lab.test');
    expect(Date.parse(body.expiresAt)).toBeGreaterThan(Date.now() + 71 * 3_600_000);

    const early = await verify(t, 'claim.lab.test');
    expect(early.statusCode).toBe(422);
    expect(early.json().reason).toMatch(/https:\/\/claim\.lab\.test\/\.well-known\/tlsrum\.txt was not found \(404\)/);
    expect(early.json().reason).toMatch(/there is no TXT record at _tlsrum\.claim\.lab\.test/);

    files.set('claim.lab.test', 'some other text\n');
    const wrong = await verify(t, 'claim.lab.test');
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().reason).toMatch(/does not hold the challenge of an open claim \(wrong content\)/);
    expect(await registered(t)).not.toContain('claim.lab.test');

    files.set('claim.lab.test', `${body.challenge}\n`);
    const ok = await verify(t, 'claim.lab.test');
    expect(ok.statusCode).toBe(201);
    const { readToken, method, hostname } = ok.json<{ readToken: string; method: string; hostname: string }>();
    expect({ method, hostname }).toEqual({ method: 'well-known', hostname: 'claim.lab.test' });
    expect(ok.headers['cache-control']).toBe('no-store');
    tokens.set('claim.lab.test', readToken);

    expect(await registered(t)).toContain('claim.lab.test');
    const hash = createHash('sha256').update(readToken).digest('hex');
    const siteRows = await (
      await t.app.store.query.query({
        query: "SELECT tokenHash FROM sites FINAL WHERE hostname = 'claim.lab.test'",
        format: 'JSONEachRow',
      })
    ).json<{ tokenHash: string }>();
    expect(siteRows).toEqual([{ tokenHash: hash }]);
    const claimed = await claimRows(t, 'claim.lab.test');
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ status: 'verified', method: 'well-known', tokenHash: hash });
    expect(JSON.stringify(claimed)).not.toContain(readToken);

    expect((await postBatch(t.app, makeBatch(makeRecords(3, { site: 'claim.lab.test' })))).statusCode).toBe(202);
    expect((await readWith(t, 'claim.lab.test', readToken)).statusCode).toBe(200);
    expect((await readWith(t, 'claim.lab.test', `${readToken}x`)).statusCode).toBe(401);
    // The claim is used up: a second verification needs a new claim.
    expect((await verify(t, 'claim.lab.test')).statusCode).toBe(404);
  });

  it('claim → TXT record at _tlsrum.HOSTNAME → verify by DNS, without connecting to the site', async () => {
    const c = await claim(t, 'dns-owner.example.org');
    expect(c.statusCode).toBe(201);
    const { challenge, dnsName } = c.json<{ challenge: string; dnsName: string }>();
    expect(dnsName).toBe('_tlsrum.dns-owner.example.org');
    dns.zones.set(dnsName, { TXT: ['v=spf1 -all', challenge] });
    const ok = await verify(t, 'dns-owner.example.org');
    expect(ok.statusCode).toBe(201);
    expect(ok.json().method).toBe('dns');
    tokens.set('dns-owner.example.org', ok.json().readToken);
    expect(await registered(t)).toContain('dns-owner.example.org');
    expect((await readWith(t, 'dns-owner.example.org', ok.json().readToken)).statusCode).toBe(200);
    expect(connections).not.toContain('dns-owner.example.org');
  });

  it('a well-known file behind a redirect on the same host is followed', async () => {
    const c = await claim(t, 'samehost.lab.test');
    files.set('samehost.lab.test', c.json().challenge);
    const ok = await verify(t, 'samehost.lab.test', freshIp(), 'well-known');
    expect(ok.statusCode).toBe(201);
  });

  it.each([
    ['1.2.3.4', /an IP address cannot be registered/],
    ['[::1]', /an IP address cannot be registered/],
    ['::ffff:127.0.0.1', /an IP address cannot be registered/],
    ['127.1', /an IP address cannot be registered/],
    ['0x7f.0.0.1', /an IP address cannot be registered/],
    ['localhost', /means this computer/],
    ['app.localhost', /means this computer/],
    ['printer.local', /names ending in \.local are reserved/],
    ['shop.test', /names ending in \.test are reserved/],
    ['router.home.arpa', /names ending in \.home\.arpa are reserved/],
    ['intranet', /is a single label, not a public DNS name/],
    ['example.org:8443', /without a port/],
    ['example.org/shop', /without a path/],
    ['example.org?x=1', /without a path/],
    ['https://example.org/', /^give the hostname only \(e\.g\. example\.com\), not a URL$/],
    ['user@example.org', /without a user name/],
    ['exa mple.org', /no spaces/],
    ['a..b.org', /not a valid hostname/],
    ['-bad-.org', /not a valid hostname/],
    ['', /give the site's hostname/],
  ])('claiming %j is a 400: %s', async (hostname, reason) => {
    const res = await claim(t, hostname);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(reason);
  });

  it('both routes are in the OpenAPI document', async () => {
    const paths = Object.keys(
      (await t.app.inject({ url: '/docs/json' })).json<{ paths: Record<string, unknown> }>().paths,
    );
    expect(paths).toEqual(expect.arrayContaining(['/v1/sites/claims', '/v1/sites/claims/{hostname}/verify']));
  });

  it('a body without a hostname is a 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/sites/claims', payload: {}, remoteAddress: freshIp() });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/hostname/);
  });

  it.each([
    ['loop.example.org', /loop\.example\.org resolves to 127\.0\.0\.1, a loopback address/],
    ['ten.example.org', /resolves to 10\.1\.2\.3, a private address/],
    ['cgnat.example.org', /resolves to 100\.64\.0\.1, a shared \(carrier-grade NAT\) address/],
    ['mapped.example.org', /resolves to ::ffff:(192\.168\.1\.1|c0a8:101), a private address/],
    ['nat64.example.org', /resolves to 64:ff9b::7f00:1, a loopback address/],
    ['mixed.example.org', /resolves to 169\.254\.169\.254, a link-local address/],
    ['nowhere.example.org', /has no address in DNS/],
  ])('claiming %s, which does not resolve to public addresses only, is a 400: %s', async (hostname, reason) => {
    const res = await claim(t, hostname);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(reason);
    expect(res.json().message).toMatch(/tlsrum connects only to addresses on the public internet|no address/);
  });

  it('a DNS server that does not answer is a 502 with a reason, not a hang', async () => {
    const res = await claim(t, 'silent.example.org');
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toMatch(/did not answer within 1\.5 s; try again/);
  });

  it('a name that resolves to 127.0.0.1 by the time of verification is refused by the check', async () => {
    const c = await claim(t, 'rebind.example.org');
    expect(c.statusCode).toBe(201);
    dns.zones.set('rebind.example.org', { A: ['127.0.0.1'] });
    dns.zones.set('_tlsrum.rebind.example.org', { TXT: [c.json().challenge] });
    const res = await verify(t, 'rebind.example.org');
    expect(res.statusCode).toBe(422);
    expect(res.json().reason).toMatch(/rebind\.example\.org resolves to 127\.0\.0\.1, a loopback address/);
    expect(connections).not.toContain('rebind.example.org');
  });

  it.each([
    ['redirect.lab.test', /redirects to https:\/\/elsewhere\.example\.net: redirects to another host are not followed/],
    ['big.lab.test', /the answer is longer than 4096 bytes/],
    ['slow.lab.test', /slow\.lab\.test did not answer within 1\.5 s/],
    [
      'badcert.other.test',
      /the connection to badcert\.other\.test is not secure: its certificate does not name this host/,
    ],
  ])('verifying %s fails with a reason: %s', async (hostname, reason) => {
    const c = await claim(t, hostname);
    expect(c.statusCode).toBe(201);
    files.set(hostname, c.json().challenge);
    const res = await verify(t, hostname, freshIp(), 'well-known');
    expect(res.statusCode).toBe(422);
    expect(res.json().reason).toMatch(reason);
    expect(await registered(t)).not.toContain(hostname);
  });

  it('verifying a hostname nobody claimed is a 404 saying to claim it first', async () => {
    const res = await verify(t, 'unclaimed.example.org');
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toMatch(/no open claim for unclaimed\.example\.org: claim it first/);
  });

  it('repeated claims from one address (or its /64) get 429 + Retry-After', async () => {
    const ip = '2001:db8:1:2::10';
    for (let i = 0; i < 5; i++) expect((await claim(t, 'rate.example.org', ip)).statusCode).toBe(201);
    const sixth = await claim(t, 'rate.example.org', ip);
    expect(sixth.statusCode).toBe(429);
    expect(sixth.json().message).toMatch(/too many claims from your address: at most 5 an hour/);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
    expect((await claim(t, 'rate.example.org', '2001:db8:1:2::99')).statusCode).toBe(429);
    expect((await claim(t, 'rate.example.org', '2001:db8:1:3::10')).statusCode).toBe(201);
  });

  it('none of the refused names is registered or stored, and the collector keeps working', async () => {
    const sites = await registered(t);
    expect(sites.sort()).toEqual(['claim.lab.test', 'dns-owner.example.org', 'samehost.lab.test']);
    const hosts = await (
      await t.app.store.query.query({ query: 'SELECT DISTINCT hostname FROM site_claims', format: 'JSONEachRow' })
    ).json<{ hostname: string }>();
    expect(hosts.map((h) => h.hostname).sort()).toEqual(
      [
        'big.lab.test',
        'badcert.other.test',
        'claim.lab.test',
        'dns-owner.example.org',
        'rate.example.org',
        'rebind.example.org',
        'redirect.lab.test',
        'samehost.lab.test',
        'slow.lab.test',
      ].sort(),
    );
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    expect((await postBatch(t.app, makeBatch(makeRecords(2)))).statusCode).toBe(202);
  });

  it('the guard: a name resolving to 127.0.0.1 is not connected to unless allow-listed, then at the address checked', async () => {
    const url = new URL(`https://loop.example.org:${port}/.well-known/tlsrum.txt`);
    files.set('loop.example.org', 'hello');
    const limits = { timeoutMs: 1500, maxBytes: 4096, maxRedirects: 0, ca: [caPem], userAgent: 'test' };
    const policy = { allow: new Map(), dnsServers: [`127.0.0.1:${dns.port}`], timeoutMs: 1500 };
    await expect(fetchPublicHttps(url, policy, limits)).rejects.toThrow(
      /loop\.example\.org resolves to 127\.0\.0\.1, a loopback address/,
    );
    expect(connections).not.toContain('loop.example.org');
    const allowed = { ...policy, allow: new Map([['loop.example.org', { address: '127.0.0.1', port }]]) };
    expect(await fetchPublicHttps(url, allowed, limits)).toEqual({ status: 200, body: 'hello' });
    expect(connections).toContain('loop.example.org');
  });

  it('the probe refuses a registered name resolving to 127.0.0.1 without the allow-list, and probes it with it', async () => {
    connections.length = 0;
    const scheduler = (allow: Map<string, { address: string; port: number }>) =>
      new ProbeScheduler({
        client: t.app.store.query,
        config: { intervalMs: 0, concurrency: 1, timeoutMs: 1500, runs: 1, jitter: 0 },
        targets: () => [{ site: 'loop.example.org', hostname: 'loop.example.org' }],
        urlOf: (h) => `https://${h}:${port}/`,
        probeOptions: { ca: [caPem] },
        policy: { allow, dnsServers: [`127.0.0.1:${dns.port}`], timeoutMs: 1500 },
      });
    const [refused] = await scheduler(new Map()).runCycle();
    expect(refused!.outcome.result.errors).toEqual([
      'dns: loop.example.org resolves to 127.0.0.1, a loopback address: tlsrum connects only to addresses on the public internet',
    ]);
    expect(refused!.outcome.result.tls.negotiated.version).toBeNull();
    expect(connections).toEqual([]);
    const [probed] = await scheduler(new Map([['loop.example.org', { address: '127.0.0.1', port }]])).runCycle();
    expect(probed!.outcome.result.tls.negotiated.version).toBe('1.3');
    expect(probed!.outcome.result.errors.filter((e) => e.startsWith('dns:'))).toEqual([]);
    expect(connections).toContain('loop.example.org');
    const stored = await listProbes(t.app.store.query, 'loop.example.org', 0, Date.now() + 1000);
    expect(stored.map((s) => s.result.tls.negotiated.version)).toContain('1.3');
  });

  it('ownership is checked again: 7 days of failed re-checks revoke the token and unregister the site; the owner can claim again', async () => {
    const t0 = Date.now();
    const first = await t.app.claims.recheck(t0);
    expect(first).toMatchObject({ checked: 3, ok: 3, failing: 0, revoked: [] });

    files.delete('claim.lab.test');
    expect(await t.app.claims.recheck(t0 + 1000)).toMatchObject({ failing: 1, revoked: [] });
    const failing = (await claimRows(t, 'claim.lab.test'))[0]!;
    expect(failing.status).toBe('verified');
    expect(String(failing.lastReason)).toMatch(/was not found \(404\)/);
    expect((await readWith(t, 'claim.lab.test', tokens.get('claim.lab.test')!)).statusCode).toBe(200);

    expect(await t.app.claims.recheck(t0 + 1000 + 6 * 86_400_000)).toMatchObject({ failing: 1, revoked: [] });
    expect(await t.app.claims.recheck(t0 + 1000 + 7 * 86_400_000)).toMatchObject({ revoked: ['claim.lab.test'] });
    expect(await registered(t)).not.toContain('claim.lab.test');
    expect((await readWith(t, 'claim.lab.test', tokens.get('claim.lab.test')!)).statusCode).toBe(401);
    expect((await claimRows(t, 'claim.lab.test'))[0]).toMatchObject({ status: 'revoked' });
    // The others kept their proof in place.
    expect(await registered(t)).toEqual(expect.arrayContaining(['dns-owner.example.org', 'samehost.lab.test']));

    const again = await claim(t, 'claim.lab.test');
    expect(again.statusCode).toBe(201);
    files.set('claim.lab.test', again.json().challenge);
    const ok = await verify(t, 'claim.lab.test');
    expect(ok.statusCode).toBe(201);
    expect((await readWith(t, 'claim.lab.test', ok.json().readToken)).statusCode).toBe(200);
  });

  it("a re-check never revokes the operator's own registration of a claimed site", async () => {
    const reg = await t.app.inject({
      method: 'POST',
      url: '/v1/sites',
      payload: { hostname: 'dns-owner.example.org' },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(reg.statusCode).toBe(201);
    dns.zones.delete('_tlsrum.dns-owner.example.org');
    await t.app.claims.recheck(Date.now());
    await t.app.claims.recheck(Date.now() + 8 * 86_400_000);
    expect(await registered(t)).toContain('dns-owner.example.org');
    expect((await readWith(t, 'dns-owner.example.org', reg.json().readToken)).statusCode).toBe(200);
    expect((await claimRows(t, 'dns-owner.example.org')).map((r) => r.status)).toEqual(['superseded']);
  });
});

describe('SELF_SERVICE=false', () => {
  it('turns both claim routes off with a 403 saying so; the admin route still registers', async () => {
    const t = await startApp(env({ SELF_SERVICE: 'false' }));
    try {
      const c = await claim(t, 'dns-owner.example.org');
      expect(c.statusCode).toBe(403);
      expect(c.json().message).toMatch(/self-service registration is turned off on this collector/);
      expect((await verify(t, 'dns-owner.example.org')).statusCode).toBe(403);
      const reg = await t.app.inject({
        method: 'POST',
        url: '/v1/sites',
        payload: { hostname: 'ops.example.org' },
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(reg.statusCode).toBe(201);
    } finally {
      await t.close();
      removeDir(t.dataDir);
    }
  }, 60_000);
});
