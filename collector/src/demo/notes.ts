import type { Config } from '../platform/config';
import { SITES } from './profiles';

/**
 * What the demo does differently from `pnpm start`, said on every start: a person should not have to read
 * the code to learn why the Configuration panel has no probe, or how to get a read token again. No secret
 * is printed here: the read tokens are shown once, when the sites are registered.
 */
export function demoNotes(config: Config, base: string): string[] {
  const notes: string[] = [];
  if (config.probe.intervalMs === 0)
    notes.push(
      'tlsrum demo: TLS probes are off: the demo sites are made-up names that no server answers, so every probe would fail.',
      '  To probe real sites, register them and start with PROBE_INTERVAL_MS=3600000 (once an hour); `pnpm probe URL` checks one now.',
    );
  const register = `curl -X POST ${base}/v1/sites -H "authorization: Bearer $ADMIN_TOKEN" -H 'content-type: application/json' -d '{"hostname":"${SITES.find((s) => s.hostname)!.hostname}"}'`;
  notes.push(
    config.adminToken === null
      ? 'tlsrum demo: no admin token is set, so no new read token can be issued. To issue one (the tokens above are shown only once):'
      : 'tlsrum demo: to issue a new read token for a site (registering it again revokes its old token):',
    ...(config.adminToken === null
      ? ['  ADMIN_TOKEN=$(openssl rand -hex 16) pnpm demo    # start with an admin token']
      : []),
    `  ${register}`,
    '  The answer holds the new readToken; registering a site again revokes its old token.',
  );
  return notes;
}
