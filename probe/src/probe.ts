/**
 * Probe one URL: cold runs (phases, negotiated parameters, OCSP, trust, Alt-Svc), then one try per TLS
 * version (acceptance, chain as sent, sessions), then one resumption try per version. Every failure becomes a
 * line in `errors`; nothing here throws for a bad server.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { ProbeResult } from '@tlsrum/shared';
import { chainFacts, namesOcspResponder, NO_CHAIN } from './cert';
import type { Target } from './connect';
import { coldRuns, median } from './phases';
import { pqSupported } from './pq';
import { resumptionFacts } from './resumption';
import { tryAllVersions } from './versions';

export interface ProbeOptions {
  /** Cold runs whose phases are reduced to medians. */
  runs: number;
  /** Extra trusted CA certificates (PEM text), on top of Node's bundled roots. */
  ca: string[];
  /** host → address, like curl's --resolve (no lookup for these hosts). */
  resolve: Record<string, string>;
  /** Do not report an untrusted, expired or misnamed certificate as an error. */
  insecure: boolean;
  /** Per connection phase (lookup, connect, handshake, request), ms. */
  timeoutMs: number;
}

export const DEFAULT_PROBE_OPTIONS: ProbeOptions = { runs: 3, ca: [], resolve: {}, insecure: false, timeoutMs: 10_000 };

/** `https://host[:port]/path`; a bare host name means its root page. Throws on anything else. */
export function probeUrl(input: string): URL {
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `https://${input}/`);
  if (url.protocol !== 'https:') throw new Error(`only https URLs can be probed, got ${url.protocol}`);
  url.hash = '';
  return url;
}

/** Why a certificate is not trusted, in words (Node / OpenSSL codes as they come from authorizationError). */
export function trustReason(code: string): string {
  switch (code) {
    case 'CERT_HAS_EXPIRED':
      return 'the certificate has expired';
    case 'CERT_NOT_YET_VALID':
      return 'the certificate is not valid yet';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return `the certificate is self-signed or chains to an unknown root (${code})`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `the certificate is issued by an authority this client does not trust, or the chain is incomplete (${code})`;
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'the certificate does not name this host';
    default:
      return `the certificate is not trusted (${code})`;
  }
}

/**
 * What identifies the certificate the server presents, beyond the JSON contract: the leaf's key (SHA-256 of
 * its SubjectPublicKeyInfo) and the chain as sent (SHA-256 over the certificates' DER). A renewal with the
 * same key changes the chain but not the key; a key rollover changes both.
 */
export interface ProbeIdentity {
  leafSpkiSha256: string | null;
  chainSha256: string | null;
}

export interface ProbeOutcome {
  result: ProbeResult;
  identity: ProbeIdentity;
}

export async function probe(input: string, options: ProbeOptions = DEFAULT_PROBE_OPTIONS): Promise<ProbeResult> {
  return (await probeWithIdentity(input, options)).result;
}

function identityOf(chain: Buffer[]): ProbeIdentity {
  if (chain.length === 0) return { leafSpkiSha256: null, chainSha256: null };
  const spki = new X509Certificate(chain[0]!).publicKey.export({ type: 'spki', format: 'der' });
  const all = createHash('sha256');
  for (const c of chain) all.update(c);
  return { leafSpkiSha256: createHash('sha256').update(spki).digest('hex'), chainSha256: all.digest('hex') };
}

export async function probeWithIdentity(
  input: string,
  options: ProbeOptions = DEFAULT_PROBE_OPTIONS,
): Promise<ProbeOutcome> {
  const url = probeUrl(input);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const target: Target = { host, port: Number(url.port || 443), address: options.resolve[host] };
  const runs = await coldRuns(target, url, options.runs, options.ca, options.timeoutMs);
  const errors = [...runs.errors];
  const unreachable = runs.samples.length === 0 && errors.some((e) => e.startsWith('dns:') || e.startsWith('tcp:'));
  const tries = unreachable ? null : await tryAllVersions(target, url, options.timeoutMs);
  const res = tries ? await resumptionFacts(target, tries, options.timeoutMs) : null;
  if (tries) errors.push(...tries.flatMap((t) => (t.error ? [t.error] : [])));
  if (res) errors.push(...res.errors);
  const modern = runs.modern;
  if (modern?.trustError && !options.insecure) errors.push(`certificate: ${trustReason(modern.trustError)}`);
  const accepted = (v: string) => tries?.find((t) => t.version === v)?.accepted ?? null;
  // The chain as sent, from the newest version's handshake (servers may send different chains per version: rare).
  const chainFrom = tries ? [...tries].reverse().find((t) => t.accepted && t.chain.length > 0) : undefined;
  const pick = (k: keyof (typeof runs.samples)[number]) =>
    median(runs.samples.flatMap((s) => (s[k] === null ? [] : [s[k]])));
  const result: ProbeResult = {
    url: url.href,
    host,
    phases: { dns: pick('dns'), tcp: pick('tcp'), tls: pick('tls'), ttfb: pick('ttfb') },
    tls: {
      versions: { '1.0': accepted('1.0'), '1.1': accepted('1.1'), '1.2': accepted('1.2'), '1.3': accepted('1.3') },
      negotiated: modern?.negotiated ?? { version: null, cipher: null, group: null, alpn: null },
    },
    pq: { supported: pqSupported(modern?.negotiated.group ?? null) },
    cert: chainFrom ? chainFacts(chainFrom.chain) : NO_CHAIN,
    ocsp: {
      stapled: modern ? modern.ocspStapled : null,
      responder: chainFrom ? namesOcspResponder(chainFrom.chain[0]!) : null,
    },
    resumption: res?.resumption ?? { '1.2': null, '1.3': null, ticketLifetimeS: null },
    earlyData: res?.earlyData ?? { allowed: null },
    h3: {
      advertised: modern?.altSvc ? /(^|[\s,])h3(-\d+)?=/.test(modern.altSvc) : false,
      altSvc: modern?.altSvc ?? null,
    },
    errors,
  };
  return { result, identity: identityOf(chainFrom?.chain ?? []) };
}
