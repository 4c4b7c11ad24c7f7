/**
 * How much of a figure is measured and how much derived: "TLS version known for X % of records (observed
 * Y %, server-timing Z %, …)", from one `GET /v1/compare?dimensions=versionEvidence` answer over the page's
 * filters. Every panel that draws records states it (`Panel.setCoverage`); a site's view adds the share of
 * its connections whose TLS version came from its own Server-Timing header.
 */
import { EVIDENCE_SOURCES, type EvidenceSource } from '@tlsrum/shared/constants';
import type { Answer } from './api';
import { pct } from './format';

/** What the sentence calls each source (the README's names, in words). */
const SOURCE_WORDS: Record<Exclude<EvidenceSource, 'unknown'>, string> = {
  observed: 'observed',
  'server-timing': 'server-timing',
  implied: 'implied',
  'site-profile': 'site profile',
  inferred: 'inferred',
};

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

/** "TLS version known for 58 % of records (observed 20 %, server-timing 6 %, implied 25 %, site profile 5 %, inferred 2 %)." */
export function coverageSentence(c: Coverage): string {
  if (c.records === 0) return '';
  const share = (s: EvidenceSource) => (c.bySource[s] ?? 0) / c.records;
  const known = 1 - share('unknown');
  const parts = EVIDENCE_SOURCES.filter((s): s is Exclude<EvidenceSource, 'unknown'> => s !== 'unknown').map(
    (s) => `${SOURCE_WORDS[s]} ${pct(share(s))}`,
  );
  return `TLS version known for ${pct(known)} of records (${parts.join(', ')})${c.suppressed ? '; groups with too few clients left out' : ''}.`;
}

/** The site view's line: how many of its connections carried its Server-Timing header. */
export function serverTimingSentence(c: Coverage, site: string): string {
  if (c.records === 0) return '';
  return `${pct((c.bySource['server-timing'] ?? 0) / c.records)} of ${site}'s connections carried its Server-Timing header (docs/server-timing.md shows how to send it).`;
}
