/**
 * The one way the collector connects somewhere on a site's behalf (ownership checks, TLS probes): the
 * name is resolved once, every address it resolves to must be a public internet address, and the
 * connection goes to the address that was checked (no second lookup between the check and the connect,
 * so a name cannot resolve to a public address for the check and to 127.0.0.1 for the connection). TLS
 * still names the host (SNI, certificate check, Host header). Redirects to another host are not followed;
 * time and bytes are bounded.
 *
 * The operator's explicit allow-list is `PROBE_CONNECT_TO` (HOST:443:ADDRESS:PORT): such a host is
 * connected at the address given, whatever range it is in — that is how the lab and a staging setup reach
 * servers on loopback or a private network. Nothing is allowed by default. The operator's own alert
 * webhook does not come through here: it may rightly point inward.
 */
import { lookup } from 'node:dns/promises';
import { Resolver } from 'node:dns/promises';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { nonPublicKind } from './address-ranges';

export interface ConnectPolicy {
  /** Hosts the operator mapped to an address (port 443 entries of PROBE_CONNECT_TO). */
  allow: ReadonlyMap<string, { address: string; port: number }>;
  /** DNS servers asked (`IP` or `IP:PORT`); empty = the system's resolver. */
  dnsServers: readonly string[];
  /** A lookup takes at most this long, ms. */
  timeoutMs: number;
}

/** A refusal or failure, with its reason in words a site owner understands. */
export class ConnectRefused extends Error {
  constructor(
    message: string,
    readonly code:
      'not-public' | 'no-address' | 'dns' | 'timeout' | 'connect' | 'certificate' | 'redirect' | 'too-large' | 'http',
  ) {
    super(message);
  }
}

/** Where to connect for a host: the checked address, and how long the lookup took. */
export interface Pinned {
  host: string;
  address: string;
  family: 4 | 6;
  port: number;
  /** Connected through the operator's allow-list (no lookup, no range check). */
  allowListed: boolean;
  lookupMs: number;
}

/** `PROBE_CONNECT_TO` entries for port 443 (the port a site is reached on): host → where to connect. */
export function connectToMap(entries: readonly string[]): Map<string, { address: string; port: number }> {
  const map = new Map<string, { address: string; port: number }>();
  for (const e of entries) {
    const m = /^([^:]+):(\d+):(\[[^\]]+\]|[^:]+):(\d+)$/.exec(e);
    if (m && m[2] === '443') map.set(m[1]!, { address: m[3]!.replace(/^\[|\]$/g, ''), port: Number(m[4]) });
  }
  return map;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new ConnectRefused(`${what} did not answer within ${seconds(ms)} s`, 'timeout')), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN', 'EAI_NONAME', 'EAI_NODATA']);

/** A resolver asking `dnsServers` (or the system's when empty), each call bounded by `timeoutMs`. */
export function dnsResolver(policy: Pick<ConnectPolicy, 'dnsServers' | 'timeoutMs'>) {
  const resolver = new Resolver({ timeout: Math.max(100, Math.floor(policy.timeoutMs / 2)), tries: 2 });
  if (policy.dnsServers.length) resolver.setServers([...policy.dnsServers]);
  const settle = async <T>(p: Promise<T[]>, name: string): Promise<T[]> => {
    try {
      return await p;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (NOT_FOUND.has(code)) return [];
      // The resolver's own timeout and the caller's deadline race: both mean the same thing to a reader.
      if (code === 'ETIMEOUT')
        throw new ConnectRefused(
          `the DNS lookup of ${name} did not answer within ${seconds(policy.timeoutMs)} s`,
          'timeout',
        );
      throw new ConnectRefused(`the DNS lookup failed (${code || (err as Error).message})`, 'dns');
    }
  };
  return {
    /** Every IPv4 and IPv6 address of `host`, IPv4 first. */
    async addresses(host: string): Promise<string[]> {
      if (policy.dnsServers.length === 0) {
        const all = await settle(lookup(host, { all: true }), host);
        return all.sort((a, b) => a.family - b.family).map((a) => a.address);
      }
      const [v4, v6] = await Promise.all([
        settle(resolver.resolve4(host), host),
        settle(resolver.resolve6(host), host),
      ]);
      return [...v4, ...v6];
    },
    /** The TXT records of `name`, each joined from its strings. */
    async txt(name: string): Promise<string[]> {
      return (await settle(resolver.resolveTxt(name), name)).map((chunks) => chunks.join(''));
    },
  };
}

export type DnsResolver = ReturnType<typeof dnsResolver>;

/**
 * Resolves `host` once and checks every address: refuses when any is not a public internet address (a
 * name that resolves to one public and one private address could be steered to the private one).
 */
export async function resolvePublic(
  host: string,
  policy: ConnectPolicy,
  resolver: DnsResolver = dnsResolver(policy),
): Promise<Pinned> {
  const mapped = policy.allow.get(host);
  if (mapped)
    return {
      host,
      address: mapped.address,
      family: isIP(mapped.address) === 6 ? 6 : 4,
      port: mapped.port,
      allowListed: true,
      lookupMs: 0,
    };
  if (isIP(host)) throw new ConnectRefused(`${host} is an IP address, not a name`, 'not-public');
  const t0 = performance.now();
  const addresses = await withDeadline(resolver.addresses(host), policy.timeoutMs, `the DNS lookup of ${host}`);
  const lookupMs = performance.now() - t0;
  if (addresses.length === 0)
    throw new ConnectRefused(`${host} has no address in DNS (no A or AAAA record)`, 'no-address');
  for (const address of addresses) {
    const kind = nonPublicKind(address);
    if (kind) {
      throw new ConnectRefused(
        `${host} resolves to ${address}, a ${kind} address: tlsrum connects only to addresses on the public internet`,
        'not-public',
      );
    }
  }
  const address = addresses[0]!;
  return { host, address, family: isIP(address) === 6 ? 6 : 4, port: 443, allowListed: false, lookupMs };
}

/** A lookup function that answers the checked address only (Node's connect then does no lookup of its own). */
export function pinnedLookup(pinned: Pick<Pinned, 'address' | 'family'>): LookupFunction {
  return (_hostname, options, callback) => {
    const cb = callback as (
      err: Error | null,
      address: string | { address: string; family: number }[],
      family?: number,
    ) => void;
    if ((options as { all?: boolean }).all) cb(null, [{ address: pinned.address, family: pinned.family }]);
    else cb(null, pinned.address, pinned.family);
  };
}

export interface FetchLimits {
  /** The whole exchange (connect, handshake, headers, body), ms. */
  timeoutMs: number;
  /** Largest body read; a longer answer is refused. */
  maxBytes: number;
  /** Same-host redirects followed (another host's are refused). */
  maxRedirects: number;
  /** Extra trusted CA certificates (PEM), on top of Node's bundled roots. */
  ca: readonly string[];
  userAgent: string;
}

export interface Fetched {
  status: number;
  body: string;
}

const MAX_HEADER_BYTES = 16 * 1024;

function tlsWords(code: string): string {
  switch (code) {
    case 'CERT_HAS_EXPIRED':
      return 'its certificate has expired';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'its certificate does not name this host';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return 'its certificate is self-signed';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'its certificate is issued by an authority browsers do not trust, or the chain is incomplete';
    default:
      return `its certificate is not valid (${code})`;
  }
}

function getOnce(
  url: URL,
  pinned: Pinned,
  limits: FetchLimits,
  deadline: number,
): Promise<{ status: number; location: string | null; body: string }> {
  return new Promise((resolve, reject) => {
    const left = deadline - Date.now();
    if (left <= 0)
      return reject(new ConnectRefused(`${url.host} did not answer within ${limits.timeoutMs / 1000} s`, 'timeout'));
    const req = httpsRequest({
      host: url.hostname,
      port: pinned.port,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      servername: url.hostname,
      lookup: pinnedLookup(pinned),
      agent: false,
      maxHeaderSize: MAX_HEADER_BYTES,
      ...(limits.ca.length ? { ca: [...rootCertificates, ...limits.ca] } : {}),
      headers: {
        host: url.hostname,
        'user-agent': limits.userAgent,
        accept: 'text/plain',
        'accept-encoding': 'identity',
      },
    });
    const timer = setTimeout(() => {
      req.destroy(new ConnectRefused(`${url.host} did not answer within ${limits.timeoutMs / 1000} s`, 'timeout'));
    }, left);
    const fail = (err: Error) => {
      clearTimeout(timer);
      if (err instanceof ConnectRefused) return reject(err);
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (/CERT|SELF_SIGNED|ALTNAME|UNABLE_TO/.test(code))
        return reject(
          new ConnectRefused(`the connection to ${url.hostname} is not secure: ${tlsWords(code)}`, 'certificate'),
        );
      if (code === 'HPE_HEADER_OVERFLOW')
        return reject(
          new ConnectRefused(
            `${url.hostname} answered with headers larger than ${MAX_HEADER_BYTES} bytes`,
            'too-large',
          ),
        );
      reject(new ConnectRefused(`could not connect to ${url.hostname} (${code || err.message})`, 'connect'));
    };
    req.once('error', fail);
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        clearTimeout(timer);
        res.destroy();
        return resolve({ status, location: res.headers.location ?? null, body: '' });
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        clearTimeout(timer);
        res.destroy();
        return reject(
          new ConnectRefused(`the answer is ${declared} bytes; at most ${limits.maxBytes} are read`, 'too-large'),
        );
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          clearTimeout(timer);
          res.destroy();
          return reject(
            new ConnectRefused(
              `the answer is longer than ${limits.maxBytes} bytes, the most that is read`,
              'too-large',
            ),
          );
        }
        chunks.push(chunk);
      });
      res.once('end', () => {
        clearTimeout(timer);
        resolve({ status, location: null, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.once('error', fail);
    });
    req.end();
  });
}

/**
 * GET an https URL of a site through the guard: one lookup for the host, connect to the address checked,
 * follow only redirects that stay on the same host (at most `maxRedirects`), read at most `maxBytes`.
 */
export async function fetchPublicHttps(
  url: URL,
  policy: ConnectPolicy,
  limits: FetchLimits,
  resolver?: DnsResolver,
): Promise<Fetched> {
  if (url.protocol !== 'https:') throw new ConnectRefused(`only https URLs are fetched, not ${url.protocol}`, 'http');
  const deadline = Date.now() + limits.timeoutMs;
  const pinned = await resolvePublic(
    url.hostname,
    { ...policy, timeoutMs: Math.min(policy.timeoutMs, limits.timeoutMs) },
    resolver,
  );
  let current = url;
  for (let hop = 0; ; hop++) {
    const answer = await getOnce(current, pinned, limits, deadline);
    if (answer.location === null) return { status: answer.status, body: answer.body };
    let next: URL;
    try {
      next = new URL(answer.location, current);
    } catch {
      throw new ConnectRefused(`${current.href} redirects to an address that is not a URL`, 'redirect');
    }
    if (next.protocol !== 'https:' || next.hostname !== url.hostname || next.port !== url.port) {
      throw new ConnectRefused(
        `${current.href} redirects to ${next.origin}: redirects to another host are not followed`,
        'redirect',
      );
    }
    if (hop >= limits.maxRedirects)
      throw new ConnectRefused(`${url.href} redirects more than ${limits.maxRedirects} times`, 'redirect');
    current = next;
  }
}
