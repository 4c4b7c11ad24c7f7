/**
 * How much of a figure is measured and how much derived: "TLS version known for X % of records (observed
 * Y %, server-timing Z %, …)", and which record sources it rests on ("From site visitors (beacon) A %,
 * …"), from two answers over the page's filters, `GET /v1/compare?dimensions=versionEvidence` and
 * `…dimensions=source` (each read from the rollups; the two together would read every stored record). Every
 * answer's plain-words line is said once per page, in the verdict; a site's view adds the share of its
 * connections whose TLS version came from its own Server-Timing header.
 */
import { EVIDENCE_SOURCES, RECORD_SOURCES, type EvidenceSource, type RecordSource } from '@tlsrum/shared/constants';
import { FILTERS } from '@tlsrum/shared/query';
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
  /** Records in the shown (not suppressed) groups of the evidence answer. */
  records: number;
  bySource: Partial<Record<EvidenceSource, number>>;
  /** Records in the shown groups of the record-source answer. */
  sourceRecords: number;
  /** Records by who measured them: the site's beacon, the extension, the synthetic runner. */
  byRecordSource: Partial<Record<RecordSource, number>>;
  /** Some groups were too small to show: the shares are over the others. */
  suppressed: boolean;
}

/** Records of each shown group of one dimension (`known`: the values counted), and whether any was suppressed. */
function tally<K extends string>(a: Answer, dimension: string, known: readonly K[]) {
  const by: Partial<Record<K, number>> = {};
  let records = 0;
  let suppressed = false;
  for (const c of a.cells) {
    if (c.suppressed) {
      suppressed = true;
      continue;
    }
    const k = c.key[dimension] as K | undefined;
    if (!k || !known.includes(k)) continue;
    by[k] = (by[k] ?? 0) + (c.records ?? 0);
    records += c.records ?? 0;
  }
  return { by, records, suppressed };
}

/** The coverage of the answers by TLS-version evidence and by record source. */
export function coverageOf(evidence: Answer, sources: Answer): Coverage {
  const e = tally(evidence, 'versionEvidence', EVIDENCE_SOURCES);
  const r = tally(sources, 'source', RECORD_SOURCES);
  return {
    records: e.records,
    bySource: e.by,
    sourceRecords: r.records,
    byRecordSource: r.by,
    suppressed: e.suppressed || r.suppressed,
  };
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

/** "From site visitors (beacon) 62 %, extension users 38 %." — the sources with records, in the filter's order. */
export function recordSourceSentence(c: Coverage): string {
  if (c.sourceRecords === 0) return '';
  const labels: Readonly<Record<string, string>> = FILTERS.source.valueLabels ?? {};
  const parts = RECORD_SOURCES.filter((s) => (c.byRecordSource[s] ?? 0) > 0).map(
    (s) => `${(labels[s] ?? s).toLowerCase()} ${pct((c.byRecordSource[s] ?? 0) / c.sourceRecords)}`,
  );
  return parts.length ? `From ${parts.join(', ')}.` : '';
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
