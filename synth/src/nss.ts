/**
 * A private CA trusted by one browser run only, through an NSS database made for it with certutil
 * (libnss3-tools) — never the system store. Firefox reads the database in its profile; Chromium on
 * Linux reads `$HOME/.pki/nssdb`, so its run gets a temporary HOME holding one.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CERTUTIL = '/usr/bin/certutil';

/** A fresh NSS database in `dir` with the CA trusted to identify servers (`C,,`). */
export function trustCaInNssDb(dir: string, caCertPath: string): void {
  if (!existsSync(CERTUTIL)) {
    throw new Error(
      `${CERTUTIL} is needed to trust ${caCertPath}: apt-get install libnss3-tools (or node scripts/ensure-system-deps.mjs)`,
    );
  }
  mkdirSync(dir, { recursive: true });
  execFileSync(CERTUTIL, ['-N', '-d', `sql:${dir}`, '--empty-password'], { stdio: 'pipe' });
  execFileSync(CERTUTIL, ['-A', '-d', `sql:${dir}`, '-t', 'C,,', '-n', 'tlsrum-synth-ca', '-i', caCertPath], {
    stdio: 'pipe',
  });
}

/** A HOME for Chromium whose NSS database trusts the CA; the caller removes `home` after the run. */
export function chromiumHomeTrusting(home: string, caCertPath: string): string {
  trustCaInNssDb(join(home, '.pki', 'nssdb'), caCertPath);
  return home;
}

/**
 * A self-signed certificate marked as a CA (what `openssl req -x509` makes by default) cannot identify a
 * server to Firefox even when trusted: its verifier refuses a CA certificate used as the server's own
 * (MOZILLA_PKIX_ERROR_CA_CERT_USED_AS_END_ENTITY, which reaches the runner only as a bare
 * NS_ERROR_GENERATE_FAILURE). Firefox accepts it through a certificate exception, the one a person adds
 * with "Accept the risk": `cert_override.txt` in the profile, per host:port, for this exact certificate
 * (its SHA-256 fingerprint), so no other certificate is accepted. Exceptions ignore containers, so the
 * cold visits' user contexts use them too. Only the URLs' own host:port are covered (a page's resources
 * on other origins are not). Returns the lines written: none for a certificate that is not a self-signed
 * CA; for a real root CA they match nothing, as no server presents its root as its own certificate.
 */
export function firefoxExceptionsFor(profile: string, caCertPath: string, urls: readonly string[]): string[] {
  const cert = new X509Certificate(readFileSync(caCertPath));
  if (cert.subject !== cert.issuer || !cert.ca) return [];
  const origins = [
    ...new Set(
      urls.map((u) => {
        const url = new URL(u);
        return `${url.hostname}:${url.port || 443}`;
      }),
    ),
  ];
  const lines = origins.map((o) => `${o}:\tOID.2.16.840.1.101.3.4.2.1\t${cert.fingerprint256}\t`);
  writeFileSync(
    join(profile, 'cert_override.txt'),
    ['# PSM Certificate Override Settings file', '# This is a generated file!  Do not edit.', ...lines, ''].join('\n'),
  );
  return lines;
}
