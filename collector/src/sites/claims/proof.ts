/**
 * Looking for a claim's challenge where only the site's owner can put it: the TXT records of
 * `_tlsrum.HOSTNAME`, or the file `https://HOSTNAME/.well-known/tlsrum.txt` (fetched through the
 * connection guard: public address, valid certificate, no redirect to another host, bounded time and size).
 * Before either, the name must resolve to public addresses only: a site tlsrum measures and probes is on
 * the public internet.
 */
import {
  ConnectRefused,
  fetchPublicHttps,
  resolvePublic,
  type ConnectPolicy,
  type DnsResolver,
} from '../../platform/net/public-connect';
import type { ProofMethod } from './store';

/** The file's path, the same on every site. */
export const WELL_KNOWN_PATH = '/.well-known/tlsrum.txt';
export const dnsNameOf = (hostname: string) => `_tlsrum.${hostname}`;
export const wellKnownUrlOf = (hostname: string) => `https://${hostname}${WELL_KNOWN_PATH}`;
/** The file need hold only the challenge (a line per collector or owner): anything longer is refused unread. */
export const MAX_PROOF_BYTES = 4096;
const MAX_REDIRECTS = 3;

export interface ProofContext {
  policy: ConnectPolicy;
  resolver: DnsResolver;
  /** The whole check (lookups, connection, answer), ms. */
  timeoutMs: number;
  /** Extra CAs trusted for the site's certificate (PROBE_CA_FILE). */
  ca: readonly string[];
}

export type ProofOutcome = { found: true; method: ProofMethod; challenge: string } | { found: false; reason: string };

/** Lines (or TXT strings) that equal one of the challenges. */
function match(values: string[], challenges: readonly string[]): string | null {
  for (const v of values) for (const line of v.split(/\r?\n/)) if (challenges.includes(line.trim())) return line.trim();
  return null;
}

async function viaDns(hostname: string, challenges: readonly string[], ctx: ProofContext): Promise<ProofOutcome> {
  const name = dnsNameOf(hostname);
  let records: string[];
  try {
    records = await ctx.resolver.txt(name);
  } catch (err) {
    return { found: false, reason: err instanceof ConnectRefused ? err.message : `the DNS lookup of ${name} failed` };
  }
  if (records.length === 0) return { found: false, reason: `there is no TXT record at ${name}` };
  const challenge = match(records, challenges);
  return challenge
    ? { found: true, method: 'dns', challenge }
    : {
        found: false,
        reason: `the TXT record${records.length > 1 ? 's' : ''} at ${name} ${records.length > 1 ? 'do' : 'does'} not hold the challenge of an open claim`,
      };
}

async function viaWellKnown(hostname: string, challenges: readonly string[], ctx: ProofContext): Promise<ProofOutcome> {
  const url = wellKnownUrlOf(hostname);
  try {
    const answer = await fetchPublicHttps(new URL(url), ctx.policy, {
      timeoutMs: ctx.timeoutMs,
      maxBytes: MAX_PROOF_BYTES,
      maxRedirects: MAX_REDIRECTS,
      ca: ctx.ca,
      userAgent: 'tlsrum-ownership-check/1',
    });
    if (answer.status === 404) return { found: false, reason: `${url} was not found (404)` };
    if (answer.status !== 200) return { found: false, reason: `${url} answered ${answer.status} instead of 200` };
    if (answer.body.trim() === '') return { found: false, reason: `${url} is empty` };
    const challenge = match([answer.body], challenges);
    return challenge
      ? { found: true, method: 'well-known', challenge }
      : { found: false, reason: `${url} does not hold the challenge of an open claim (wrong content)` };
  } catch (err) {
    if (err instanceof ConnectRefused) return { found: false, reason: err.message };
    throw err;
  }
}

/**
 * Whether one of `challenges` is published for `hostname`: by `method` only when given, else the DNS
 * record first (no connection to the site needed), then the file. The reason of a failure names both.
 */
export async function findProof(
  hostname: string,
  challenges: readonly string[],
  ctx: ProofContext,
  method?: ProofMethod,
): Promise<ProofOutcome> {
  try {
    await resolvePublic(hostname, { ...ctx.policy, timeoutMs: ctx.timeoutMs }, ctx.resolver);
  } catch (err) {
    if (err instanceof ConnectRefused) return { found: false, reason: err.message };
    throw err;
  }
  if (method === 'dns') return viaDns(hostname, challenges, ctx);
  if (method === 'well-known') return viaWellKnown(hostname, challenges, ctx);
  const dns = await viaDns(hostname, challenges, ctx);
  if (dns.found) return dns;
  const file = await viaWellKnown(hostname, challenges, ctx);
  if (file.found) return file;
  return { found: false, reason: `neither proof was found. File: ${file.reason}. DNS: ${dns.reason}.` };
}
