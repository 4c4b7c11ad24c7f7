/**
 * `--ca` with the server's own self-signed certificate, made the way `openssl req -x509` makes it (marked
 * as a CA): real Firefox ESR against a real nginx. Firefox refuses a CA certificate as a server's own even
 * when trusted; the runner's certificate exception for that exact certificate lets the visit through.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSynthetic } from '@tlsrum/synth';
import type { TestCerts } from './certs';
import { startNginx } from './nginx';
import { useTestServer } from './setup';

function selfSignedCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'tlsrum-synth-self-'));
  const pem = join(dir, 'self.pem');
  const key = join(dir, 'self.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      pem,
      '-days',
      '2',
      '-subj',
      '/CN=a.synth.test',
      '-addext',
      'subjectAltName=DNS:a.synth.test,DNS:b.synth.test,DNS:c.synth.test',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    { stdio: 'pipe' },
  );
  return { dir, caPem: pem, leafPem: pem, leafKey: key, chainPem: pem };
}

const lab = useTestServer((certs) => startNginx(certs), selfSignedCerts);

describe('synthetic runner, Firefox, a self-signed server certificate given with --ca', () => {
  it('the page loads and its TLS 1.3 handshake is measured', async () => {
    const r = await runSynthetic({
      browser: 'firefox',
      urls: [`https://a.synth.test:${lab.server.t13}/page`],
      hostResolver: { '*.synth.test': '127.0.0.1' },
      blockOtherHosts: true,
      caCertPath: lab.certs.caPem,
    });
    expect(r.visits[0]!.error).toBeUndefined();
    expect(r.failedVisits).toBe(0);
    const nav = r.records.find((x) => x.entryType === 'navigation')!;
    expect(nav).toMatchObject({ tlsVersion: '1.3', tlsVersionSource: 'observed', browser: 'firefox' });
    expect(nav.tls).toBeGreaterThan(0);
  });
});
