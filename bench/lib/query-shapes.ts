/**
 * Every query shape the dashboard and the API issue, derived from the query catalogue (a dimension or a
 * filter added there is measured without touching the bench): grouping by each dimension, the dashboard's
 * panels (the Cryptography panel's and the coverage line's questions among them), each value filter on them,
 * country × each other dimension, daily and hourly time series, and the dashboard's what-if.
 * Each shape is one GET of the API over the bench's 30 days, `table` left to the collector (`auto`), as the
 * dashboard asks it; the answer's `table` says which path served it.
 */
import { DIMENSION_NAMES, FILTERS, VALUE_FILTERS, type ValueFilterName } from '@tlsrum/shared/query';

export interface Shape {
  name: string;
  path: string;
  params: Record<string, string>;
}

/** Common values in the generated data (collector/src/demo/generate.ts) of the filters whose values are open. */
const OPEN_FILTER_VALUES: Partial<Record<ValueFilterName, string>> = {
  country: 'DE',
  group: 'X25519',
  cipher: 'TLS_AES_128_GCM_SHA256',
  certKey: 'ECDSA-P256',
  chainLength: '2',
  signatureScheme: 'rsa_pss_rsae_sha256',
};

/** A common value of each filter in the generated data (the first listed value, or one of the above). */
function filterValue(f: ValueFilterName): string | undefined {
  const labels = (FILTERS[f] as { valueLabels?: Record<string, string> }).valueLabels;
  return OPEN_FILTER_VALUES[f] ?? Object.keys(labels ?? {})[0];
}

export function queryShapes(): Shape[] {
  const shapes: Shape[] = [];
  const add = (name: string, path: string, params: Record<string, string> = {}) => shapes.push({ name, path, params });
  // The dashboard's panels (dashboard/src/main.ts), unfiltered and with each filter.
  const panels: Shape[] = [
    { name: 'compare stack,mode', path: '/v1/compare', params: { dimensions: 'stack,mode' } },
    { name: 'phases stack,mode', path: '/v1/phases', params: { dimensions: 'stack,mode' } },
    { name: 'map', path: '/v1/map', params: {} },
    { name: 'timeseries day', path: '/v1/timeseries', params: { interval: 'day' } },
    { name: 'timeseries day stack', path: '/v1/timeseries', params: { interval: 'day', dimensions: 'stack' } },
  ];
  // The Cryptography panel (its splits, its post-quantum line and its crypto-source split) and the verdict's
  // coverage line: their comparisons by one dimension are among the ones below, unfiltered.
  const cryptoPanel: Shape[] = [
    ...['group', 'certKey', 'chainLength', 'cipher', 'versionEvidence'].map((d) => ({
      name: `compare ${d}`,
      path: '/v1/compare',
      params: { dimensions: d },
    })),
    { name: 'timeseries day pq', path: '/v1/timeseries', params: { interval: 'day', dimensions: 'pq' } },
    { name: 'compare browser,cryptoSource', path: '/v1/compare', params: { dimensions: 'browser,cryptoSource' } },
  ];
  for (const p of panels) add(p.name, p.path, p.params);
  for (const p of cryptoPanel.slice(-2)) add(p.name, p.path, p.params);
  // The what-if as the dashboard asks for it (WHATIF_SAMPLE in dashboard/src/main.ts: 50 000 connections).
  add('whatif', '/v1/whatif', { limit: '50000' });
  add('timeseries hour', '/v1/timeseries', { interval: 'hour' });
  add('timeseries hour stack', '/v1/timeseries', { interval: 'hour', dimensions: 'stack' });
  for (const d of DIMENSION_NAMES) add(`compare ${d}`, '/v1/compare', { dimensions: d });
  for (const d of DIMENSION_NAMES)
    if (d !== 'country') add(`compare country,${d}`, '/v1/compare', { dimensions: `country,${d}` });
  for (const f of VALUE_FILTERS) {
    const v = filterValue(f);
    // A filter added to the catalogue with open values needs a sample value above; until then it is skipped.
    if (v === undefined) continue;
    for (const p of [...panels, ...cryptoPanel]) add(`${p.name} ${f}=${v}`, p.path, { ...p.params, [f]: v });
    add(`timeseries hour stack ${f}=${v}`, '/v1/timeseries', { interval: 'hour', dimensions: 'stack', [f]: v });
  }
  return shapes;
}

export function shapeUrl(base: string, s: Shape, from: number, to: number, table?: 'raw' | 'rollup'): string {
  const qs = new URLSearchParams({ ...s.params, from: String(from), to: String(to), ...(table ? { table } : {}) });
  return `${base}${s.path}?${qs}`;
}
