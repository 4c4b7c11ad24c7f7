/**
 * The lab sites' TLS profiles, the way a collector knows them: every measured lab hostname (the page's
 * `a.` origin and the Timing-Allow-Origin `b.` origin of each server) probed with the site probe
 * (`pnpm probe`'s code: Node's TLS, no browser) against the lab CA, directly on loopback. The accuracy
 * report's extension arm stores these results in its collector (which builds the profiles and serves them
 * in `GET /v1/sites`); its rum arm builds the same profiles with the same pure builder.
 */
import { readFileSync } from 'node:fs';
import { probeWithIdentity, type ProbeOutcome } from '@tlsrum/probe';
import { buildSiteProfile, type SiteProfile } from '@tlsrum/shared/classify';
import type { LabState } from './lab';
import { hostOf, type ServerId } from './servers';

export interface LabProbe {
  host: string;
  at: number;
  outcome: ProbeOutcome;
}

/** Origins whose connections are measured (c. is cross-origin without Timing-Allow-Origin: never measured). */
const PROBED_PREFIXES = ['a', 'b'] as const;
const CONCURRENCY = 4;

/** Probes the measured hostnames of the given servers (their TCP side: Caddy's h2 for h3). */
export async function probeLabSites(
  lab: Pick<LabState, 'ports' | 'ca'>,
  servers: readonly ServerId[],
): Promise<LabProbe[]> {
  const hosts = servers.flatMap((s) => PROBED_PREFIXES.map((p) => ({ host: hostOf(p, s), port: lab.ports[s] })));
  const ca = [readFileSync(lab.ca.caCert, 'utf8')];
  const out: LabProbe[] = [];
  const queue = [...hosts];
  const worker = async () => {
    for (let h = queue.shift(); h; h = queue.shift()) {
      const at = Date.now();
      const outcome = await probeWithIdentity(`https://${h.host}:${h.port}/`, {
        runs: 1,
        ca,
        resolve: { [h.host]: '127.0.0.1' },
        insecure: false,
        timeoutMs: 5000,
      });
      out.push({ host: h.host, at, outcome });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return out.sort((a, b) => a.host.localeCompare(b.host));
}

/** The profiles a collector builds from these probes alone (no records yet). */
export function labProfiles(probes: readonly LabProbe[], now = Date.now()): Map<string, SiteProfile> {
  return new Map(
    probes.map((p) => [
      p.host,
      buildSiteProfile({
        hostname: p.host,
        probes: [{ at: p.at, result: p.outcome.result }],
        observations: { versions: {}, resumed: {} },
        now,
      }),
    ]),
  );
}
