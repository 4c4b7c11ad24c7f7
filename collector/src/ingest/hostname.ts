/**
 * Site hostnames as the collector accepts them: shared's normalisation with Node's IDNA conversion
 * (`domainToASCII`, WHATWG URL rules: the same result a browser's `location.hostname` gives).
 */
import { domainToASCII } from 'node:url';
import { normalizeHostname } from '@tlsrum/shared';
import { httpError } from '../platform/http/error-handler';

export const normalizeSite = (raw: string): string | null => normalizeHostname(raw, domainToASCII);

/**
 * Rewrites `records[i].site` of a parsed, not yet validated body in place to its normalised form; a
 * string that is no hostname (IP literal, path, port…) is refused with 400 naming the field. Anything
 * else unexpected is left alone for the validator to refuse with the field's path.
 */
export function normalizeBatchSites(body: unknown, maxRecords: number): void {
  if (typeof body !== 'object' || body === null) return;
  const records = (body as { records?: unknown }).records;
  if (!Array.isArray(records) || records.length > maxRecords) return;
  // A batch mostly names one or two sites: each distinct string is normalised once.
  const seen = new Map<string, string | null>();
  records.forEach((r: unknown, i) => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) return;
    const site = (r as { site?: unknown }).site;
    if (typeof site !== 'string' || site.length > 1024) return;
    let normal = seen.get(site);
    if (normal === undefined) seen.set(site, (normal = normalizeSite(site)));
    if (normal === null)
      throw httpError(
        400,
        `body/records/${i}/site must be a hostname (letters, digits, hyphens, dots; no address, port or path)`,
      );
    (r as { site: string }).site = normal;
  });
}
