/**
 * Which names can be claimed: a public DNS name, given as a bare hostname. Each refusal says what was
 * wrong in words a site owner understands (a URL, a port, a path, an IP address, a name that is never
 * public). Hosts the operator allow-listed (PROBE_CONNECT_TO) may carry special-use names such as the
 * lab's `*.test`.
 */
import { isIP } from 'node:net';
import { normalizeSite } from '../../ingest/hostname';

/**
 * Special-use and private-use names: never resolvable on the public internet (RFC 6761, RFC 6762,
 * RFC 7686, RFC 8375, RFC 9476, ICANN's `.internal`), plus suffixes commonly used inside networks.
 */
const SPECIAL_SUFFIXES = [
  'localhost',
  'local',
  'test',
  'invalid',
  'example',
  'onion',
  'home.arpa',
  'arpa',
  'alt',
  'internal',
  'localdomain',
  'lan',
  'home',
  'corp',
  'intranet',
  'private',
];

export type HostnameCheck = { hostname: string } | { reason: string };

const EXAMPLE = 'e.g. example.com';

/**
 * A bare hostname, in its normal form (lower case, IDNA), or the reason in words why the text is not one:
 * a URL, a path, a port, an address. What every route that takes a site's hostname accepts, the
 * operator's registration included (which may name the lab's special-use names).
 */
export function checkHostnameForm(raw: unknown): HostnameCheck {
  if (typeof raw !== 'string' || raw.trim() === '') return { reason: `give the site's hostname, ${EXAMPLE}` };
  const text = raw.trim();
  if (text.length > 253 + 10) return { reason: 'a hostname has at most 253 characters' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { reason: `give the hostname only (${EXAMPLE}), not a URL` };
  if (/[/?#]/.test(text)) return { reason: `give the hostname only (${EXAMPLE}), without a path, query or fragment` };
  if (text.includes('@')) return { reason: `give the hostname only (${EXAMPLE}), without a user name` };
  if (/\s/.test(text)) return { reason: 'a hostname contains no spaces' };
  const bare = text.replace(/^\[(.*)\](?::\d+)?$/, '$1');
  if (isIP(bare) || isIP(text.replace(/:\d+$/, '')))
    return { reason: `an IP address cannot be registered: give the site's name (${EXAMPLE})` };
  if (/:\d*$/.test(text))
    return {
      reason: 'give the hostname without a port: sites are checked and measured on the standard HTTPS port (443)',
    };
  const hostname = normalizeSite(text);
  if (hostname === null) {
    // normalizeSite refuses names whose last label is a number: those are IPv4 addresses in another notation.
    if (/^(?:0x[0-9a-f]+|\d+)$/i.test(text.replace(/\.$/, '').split('.').pop() ?? '')) {
      return { reason: `an IP address cannot be registered: give the site's name (${EXAMPLE})` };
    }
    return {
      reason:
        'this is not a valid hostname: labels of letters, digits and hyphens separated by dots, each at most 63 characters',
    };
  }
  return { hostname };
}

/** A hostname anyone may claim: of the right form (checkHostnameForm) and a public DNS name. */
export function checkClaimHostname(raw: unknown, allowListed: (host: string) => boolean = () => false): HostnameCheck {
  const form = checkHostnameForm(raw);
  if ('reason' in form) return form;
  const { hostname } = form;
  if (allowListed(hostname)) return { hostname };
  if (hostname === 'localhost' || hostname.endsWith('.localhost'))
    return { reason: `${hostname} means this computer, not a site on the internet` };
  if (!hostname.includes('.'))
    return { reason: `"${hostname}" is a single label, not a public DNS name: give the site's full name (${EXAMPLE})` };
  const suffix = SPECIAL_SUFFIXES.find((s) => hostname === s || hostname.endsWith(`.${s}`));
  if (suffix)
    return {
      reason: `names ending in .${suffix} are reserved for local or special use and are never public: give the site's public name`,
    };
  return { hostname };
}
