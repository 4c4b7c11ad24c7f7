import { domainToASCII } from 'node:url';
import { normalizeHostname } from '@tlsrum/shared';

/**
 * The site a record belongs to: the visited page's hostname, and nothing else of its URL (no path, no
 * query, no port). A collector that does not have it registered nulls it at ingest.
 */
export function siteOf(pageUrl: string): string | null {
  return normalizeHostname(new URL(pageUrl).hostname, domainToASCII);
}
