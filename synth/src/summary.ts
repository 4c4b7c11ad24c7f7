/**
 * What `pnpm synth` prints per URL, with or without `--out`: visits, the TLS version and resumption shares
 * and p50/p75 of the TLS handshake and of the whole connection set-up. Read from the records the shared
 * classifier made (records.ts), so the summary says what the records say. The URL is printed on the
 * terminal of the person who ran it and never leaves the machine.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import type { SynthMode, VisitResult } from './types';

export interface Percentiles {
  p50: number | null;
  p75: number | null;
}

export interface UrlSummary {
  url: string;
  /** Measured visits (a warm run's priming visit is not one of them) and how many of those failed. */
  visits: number;
  failed: number;
  /** Warm mode's visits that fill the profile with a session; their full handshakes are left out below. */
  priming: number;
  /** New connections measured (one record each). */
  connections: number;
  /** Share of connections per TLS version; `unknown`: nothing told the version. */
  tlsVersion: { '1.3': number; '1.2': number; unknown: number };
  /** Share resumed among the connections whose resumption is known, and how many those are. */
  resumed: { share: number | null; known: number };
  tls: Percentiles;
  /** TCP + TLS (the whole QUIC handshake for HTTP/3): `connect` of the records. */
  connect: Percentiles;
}

/**
 * The nearest-rank percentile: the smallest measured value with at least q of the values at or below it.
 * Always a value that was measured, which keeps small runs honest.
 */
export function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

function percentiles(values: readonly number[]): Percentiles {
  return { p50: percentile(values, 0.5), p75: percentile(values, 0.75) };
}

/** One summary per URL, in the order the URLs were first visited. */
export function summarize(visits: readonly VisitResult[]): UrlSummary[] {
  const byUrl = new Map<string, VisitResult[]>();
  for (const v of visits) byUrl.set(v.url, [...(byUrl.get(v.url) ?? []), v]);
  return [...byUrl].map(([url, all]) => {
    const measured = all.filter((v) => !v.prime);
    const records: HandshakeRecord[] = measured.flatMap((v) => v.records);
    const n = records.length;
    const share = (count: number) => (n === 0 ? 0 : count / n);
    const known = records.filter((r) => r.resumed !== null);
    return {
      url,
      visits: measured.length,
      failed: measured.filter((v) => !v.ok).length,
      priming: all.length - measured.length,
      connections: n,
      tlsVersion: {
        '1.3': share(records.filter((r) => r.tlsVersion === '1.3').length),
        '1.2': share(records.filter((r) => r.tlsVersion === '1.2').length),
        unknown: share(records.filter((r) => r.tlsVersion === null).length),
      },
      resumed: {
        share: known.length === 0 ? null : known.filter((r) => r.resumed === true).length / known.length,
        known: known.length,
      },
      tls: percentiles(records.map((r) => r.tls)),
      connect: percentiles(records.map((r) => r.connect)),
    };
  });
}

const pct = (x: number) => `${Math.round(x * 100)} %`;
const ms = (x: number | null) => (x === null ? '—' : `${x.toFixed(1)} ms`);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The readable block for one URL. */
export function formatSummary(s: UrlSummary, mode: SynthMode): string {
  const versions = (['1.3', '1.2', 'unknown'] as const)
    .filter((v) => s.tlsVersion[v] > 0)
    .map((v) => `${v === 'unknown' ? 'not told' : `TLS ${v}`} ${pct(s.tlsVersion[v])}`);
  const resumed =
    s.resumed.share === null
      ? s.connections === 0
        ? '—'
        : 'not told for any connection'
      : `${pct(s.resumed.share)} of ${plural(s.resumed.known, 'connection')} whose resumption is known`;
  return [
    s.url,
    `  visits               ${s.visits} (${s.failed} failed)${s.priming ? `, after ${plural(s.priming, 'priming visit')} not counted here` : ''}`,
    `  new connections      ${s.connections}`,
    `  TLS version          ${versions.length ? versions.join(', ') : '—'}`,
    `  resumed              ${resumed}${mode === 'cold' && s.connections > 0 ? ' (cold visits start without a saved session: --mode warm measures returning visitors)' : ''}`,
    `  TLS handshake        p50 ${ms(s.tls.p50)}, p75 ${ms(s.tls.p75)}`,
    `  connection set-up    p50 ${ms(s.connect.p50)}, p75 ${ms(s.connect.p75)}   (TCP + TLS; for HTTP/3 the QUIC handshake)`,
  ].join('\n');
}
