/**
 * The view's filters, kept in the URL's query string so a view can be shared or bookmarked. The read
 * token never goes into the URL (it would leak through history and shared links): it stays in
 * sessionStorage. The data filters are the query catalogue's (@tlsrum/shared/query); range and metric
 * are the dashboard's own.
 */
import { FILTER_NAMES, widenedRange, type FilterName } from '@tlsrum/shared/query';

export type Filters = Record<FilterName, string> & {
  range: '24h' | '7d' | '30d';
  metric: 'tls' | 'connect';
};

const RANGES = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
const DEFAULTS: Filters = {
  ...(Object.fromEntries(FILTER_NAMES.map((f) => [f, ''])) as Record<FilterName, string>),
  range: '7d',
  metric: 'tls',
};
const FIELDS = Object.keys(DEFAULTS) as (keyof Filters)[];

export function readFilters(search = location.search): Filters {
  const q = new URLSearchParams(search);
  const f = { ...DEFAULTS };
  for (const k of FIELDS) {
    const v = q.get(k);
    if (v !== null) (f as Record<string, string>)[k] = v;
  }
  if (!(f.range in RANGES)) f.range = DEFAULTS.range;
  if (f.metric !== 'tls' && f.metric !== 'connect') f.metric = 'tls';
  return f;
}

export function writeFilters(f: Filters, { replace = false } = {}): void {
  const q = new URLSearchParams();
  for (const k of FIELDS) if (f[k] !== DEFAULTS[k]) q.set(k, f[k]);
  const url = `${location.pathname}${q.size ? `?${q}` : ''}`;
  if (url === `${location.pathname}${location.search}`) return;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
}

/**
 * The API parameters for the filters. The range is the one the collector reads for "the last 24 hours" or
 * "the last 7 days": widened to whole hours or days (shared/query/range.ts). So every panel covers the same
 * span, and reloads within the hour (or day) ask the same questions, which the collector keeps answered.
 */
export function apiParams(f: Filters, now = Date.now()): Record<string, string | undefined> {
  const { from, to } = widenedRange({ from: now - RANGES[f.range], to: now });
  return {
    from: String(from),
    to: String(to),
    ...Object.fromEntries(FILTER_NAMES.map((k) => [k, f[k] || undefined])),
  };
}

const TOKEN_KEY = 'tlsrum.readToken';
export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (t: string) => (t ? sessionStorage.setItem(TOKEN_KEY, t) : sessionStorage.removeItem(TOKEN_KEY)),
};
