/** The collector's query API, as the dashboard uses it (same origin). */
// The cell shape is the collector's own (one definition for both ends of the API).
export type { Cell, Quantiles } from '@tlsrum/collector/queries/cells';
import type { Cell } from '@tlsrum/collector/queries/cells';

export interface Answer {
  table: 'raw' | 'rollup';
  from: number;
  to: number;
  site: string | null;
  minClients: number;
  truncated: boolean;
  cells: Cell[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(
  path: string,
  params: Record<string, string | undefined>,
  token: string,
  signal?: AbortSignal,
  cache: RequestCache = 'default',
): Promise<T> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) qs.set(k, v);
  const res = await fetch(`./${path}${qs.size ? `?${qs}` : ''}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal,
    cache,
  });
  const body = (await res.json().catch(() => null)) as (T & { message?: string }) | null;
  if (!res.ok) throw new ApiError(res.status, body?.message ?? `${res.status} ${res.statusText}`);
  return body as T;
}

export const api = {
  query: (route: 'compare' | 'timeseries' | 'map' | 'phases', params: Record<string, string | undefined>, token: string, signal?: AbortSignal) =>
    getJson<Answer>(`v1/${route}`, params, token, signal),
  // The list is cached for the extension's sake (max-age 300); the dashboard wants a site registered a
  // minute ago, so it revalidates.
  sites: () => getJson<{ sites: string[] }>('v1/sites', {}, '', undefined, 'no-cache'),
  whatif: (params: Record<string, string | undefined>, token: string, signal?: AbortSignal) => getJson<WhatIfAnswer>('v1/whatif', params, token, signal),
  alerts: (params: Record<string, string | undefined>, token: string, signal?: AbortSignal) => getJson<AlertsAnswer>('v1/alerts', params, token, signal),
};

/** GET /v1/whatif (collector/src/whatif/report.ts). */
export interface WhatIfScenario {
  scenario: string;
  ttfb: { p50: number; p75: number };
  saving: { p50: number; p75: number };
  affected: number;
  roundTripsSaved: number;
  assumption: string;
}

export interface WhatIfResult {
  accounting: {
    connections: number;
    rttMs: number | null;
    roundTrips: { dns: number; tcp: number; tls: number; total: number };
    tlsByClass: Record<string, { share: number; roundTrips: number | null }>;
    repeatShare: number;
    meanMs: { dns: number; tcp: number; tls: number };
    ttfb: { p50: number; p75: number };
  };
  scenarios: WhatIfScenario[];
  quicRoundTrips: number | null;
}

export interface WhatIfAnswer {
  site: string | null;
  from: number;
  to: number;
  connections: number;
  sampled: boolean;
  assumptions: { general: string[]; scenarios: Record<string, string> };
  overall: WhatIfResult | null;
  regions: { country: string; connections?: number; suppressed?: true; result?: WhatIfResult | null }[];
}

/** GET /v1/alerts (collector/src/routes/alerts.ts). */
export interface AlertsAnswer {
  evaluatedAt: number | null;
  alerts: {
    site: string;
    window: 'hour' | 'day';
    check: string;
    status: 'ok' | 'firing' | 'insufficient_data';
    current: number | null;
    baseline: number | null;
    change: number | null;
    pValue: number | null;
    samples: { current: number | null; baseline: number | null };
    since: number | null;
    evaluatedAt: number;
  }[];
}
