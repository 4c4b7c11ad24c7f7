/**
 * Hostname normalisation, the same everywhere a hostname enters tlsrum (extension, collector, site
 * registration): trim, drop one trailing dot, lower-case, convert Unicode labels to IDNA A-labels
 * (punycode), then check the LDH pattern of the schema. No DOM and no Node API here: the caller passes
 * its platform's IDNA conversion (`domainToASCII` from `node:url` in Node; in a page or extension,
 * `new URL('http://' + host).hostname` does the same).
 */
import { isValidALabel } from './punycode';
import { HOSTNAME_PATTERN } from './schema';

const HOSTNAME_RE = new RegExp(HOSTNAME_PATTERN);
const MAX_HOSTNAME = 253;

/** Unicode → ASCII (IDNA/UTS #46); returns '' for a name that cannot be converted, as Node's does. */
export type ToAscii = (domain: string) => string;

/**
 * The canonical form of `raw`, or null when it is not a valid hostname (IP literals, ports, paths,
 * empty labels, over-long names and anything else outside the LDH pattern included).
 */
export function normalizeHostname(raw: string, toAscii?: ToAscii): string | null {
  let host = raw.trim();
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.length === 0 || host.length > 4 * MAX_HOSTNAME) return null;
  host = host.toLowerCase();
  // IDNA conversion parses like a URL host and would cut "a.com/x" or "a.com?x" to "a.com": refuse every
  // ASCII character a hostname cannot hold before converting.
  if (/[^-.a-z0-9\u0080-\uffff]/.test(host)) return null;
  if (toAscii) host = toAscii(host);
  else if (/[^\p{ASCII}]/u.test(host)) return null;
  if (host.length === 0 || host.length > MAX_HOSTNAME || !HOSTNAME_RE.test(host)) return null;
  // Malformed `xn--` labels are refused here, not left to the converter: platforms disagree on them.
  if (!host.split('.').every((label) => isValidALabel(label, toAscii))) return null;
  // An all-numeric last label is an IPv4 address, not a name: never a site.
  if (/^\d+$/.test(host.slice(host.lastIndexOf('.') + 1))) return null;
  return host;
}
