/**
 * How much of a figure is measured and how much derived, from one `GET /v1/compare?dimensions=versionEvidence`
 * answer over the page's filters: said once per page, in the verdict; a site's view adds the share of its
 * connections whose TLS version came from its own Server-Timing header.
 */
import { EVIDENCE_SOURCES, type EvidenceSource } from '@tlsrum/shared/constants';
import type { Answer } from './api';
import { pct } from './format';

export interface Coverage {
  /** Records in the shown (not suppressed) groups. */
  records: number;
  bySource: Partial<Record<EvidenceSource, number>>;
  /** Some groups were too small to show: the shares are over the others. */
  suppressed: boolean;
}

export function coverageOf(a: Answer): Coverage {
  const bySource: Coverage['bySource'] = {};
  let records = 0;
  let suppressed = false;
  for (const c of a.cells) {
    if (c.suppressed) {
      suppressed = true;
      continue;
    }
    const s = c.key.versionEvidence as EvidenceSource | undefined;
    if (!s || !(EVIDENCE_SOURCES as readonly string[]).includes(s)) continue;
    bySource[s] = (bySource[s] ?? 0) + (c.records ?? 0);
    records += c.records ?? 0;
  }
  return { records, bySource, suppressed };
}

/**
 * The page's evidence line, once, in plain words: how the TLS version of the connections counted is known.
 * "The TLS version was measured for 26 % of these connections (seen by the browser or sent by the site's
 * server); for the other 74 % it is worked out from the protocol, the site's probe or the timings."
 */
export function evidenceSentence(c: Coverage): string {
  if (c.records === 0) return '';
  const share = (s: EvidenceSource) => (c.bySource[s] ?? 0) / c.records;
  const measured = share('observed') + share('server-timing');
  const unknown = share('unknown');
  const derived = Math.max(0, 1 - measured - unknown);
  const parts = [
    `The TLS version was measured for ${pct(measured)} of these connections (seen by the browser or sent by the site's server)`,
    derived > 0 ? `worked out from the protocol, the site's probe or the timings for ${pct(derived)}` : '',
    unknown > 0 ? `unknown for ${pct(unknown)}` : '',
  ].filter(Boolean);
  return `${parts.join('; ')}${c.suppressed ? '; groups of too few people are left out' : ''}.`;
}

/** The site view's line: how many of its connections carried its Server-Timing header. */
export function serverTimingSentence(c: Coverage, site: string): string {
  if (c.records === 0) return '';
  return `${pct((c.bySource['server-timing'] ?? 0) / c.records)} of ${site}'s connections carried its Server-Timing header (the Server-Timing guide shows how to send it).`;
}
