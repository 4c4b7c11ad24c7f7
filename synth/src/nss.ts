/**
 * A private CA trusted by one browser run only, through an NSS database made for it with certutil
 * (libnss3-tools) — never the system store. Firefox reads the database in its profile; Chromium on
 * Linux reads `$HOME/.pki/nssdb`, so its run gets a temporary HOME holding one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
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
