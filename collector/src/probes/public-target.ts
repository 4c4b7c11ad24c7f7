/**
 * A scheduled probe goes through the collector's guard (platform/net/public-connect.ts): the site's name is
 * resolved once, refused unless every address is public (or the operator allow-listed the host), and every
 * connection of the probe goes to the checked address — the probe's own lookup is skipped by giving it
 * that address. A refusal is a failed probe whose reason says why, stored like any other failure.
 */
import type { ProbeResult } from '@tlsrum/shared';
import { probeUrl, probeWithIdentity, type ProbeOptions, type ProbeOutcome } from '@tlsrum/probe';
import { ConnectRefused, resolvePublic, type ConnectPolicy } from '../platform/net/public-connect';

function refused(url: URL, reason: string): ProbeOutcome {
  const result: ProbeResult = {
    url: url.href,
    host: url.hostname,
    phases: { dns: null, tcp: null, tls: null, ttfb: null },
    tls: {
      versions: { '1.0': null, '1.1': null, '1.2': null, '1.3': null },
      negotiated: { version: null, cipher: null, group: null, alpn: null },
    },
    pq: { supported: null },
    cert: { chainLength: 0, chainBytes: 0, leaf: null },
    ocsp: { stapled: null },
    resumption: { '1.2': null, '1.3': null, ticketLifetimeS: null },
    earlyData: { allowed: null },
    h3: { advertised: false, altSvc: null },
    errors: [`dns: ${reason}`],
  };
  return { result, identity: { leafSpkiSha256: null, chainSha256: null } };
}

/** Probes `input` at the address the guard checked; the lookup phase is the guard's one lookup. */
export async function probePublic(input: string, options: ProbeOptions, policy: ConnectPolicy): Promise<ProbeOutcome> {
  const url = probeUrl(input);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let address: string;
  let lookupMs: number;
  try {
    const pinned = await resolvePublic(host, { ...policy, timeoutMs: options.timeoutMs });
    address = pinned.address;
    lookupMs = pinned.lookupMs;
  } catch (err) {
    if (err instanceof ConnectRefused) return refused(url, err.message);
    throw err;
  }
  const outcome = await probeWithIdentity(url.href, { ...options, resolve: { ...options.resolve, [host]: address } });
  if (outcome.result.phases.tcp !== null) outcome.result.phases.dns = Math.round(lookupMs * 100) / 100;
  return outcome;
}
