/** The collector's query API, as the dashboard uses it (same origin). */
// The answers' shapes are the collector's own response schemas (one definition for both ends of the API).
import type { AlertsAnswer, ProbesAnswer, QueryAnswer, WhatIfAnswer } from '@tlsrum/shared/query/schemas';

export type {
  AlertsAnswer,
  Cell,
  ProbesAnswer,
  Quantiles,
  WhatIfAnswer,
  WhatIfResult,
} from '@tlsrum/shared/query/schemas';
export type Answer = QueryAnswer;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds, from the answer's Retry-After. */
    readonly retryAfter?: number,
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
  if (!res.ok) {
    const retryAfter = Number(res.headers.get('retry-after'));
    throw new ApiError(
      res.status,
      body?.message ?? `${res.status} ${res.statusText}`,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
  return body as T;
}

export const api = {
  query: (
    route: 'compare' | 'timeseries' | 'map' | 'phases',
    params: Record<string, string | undefined>,
    token: string,
    signal?: AbortSignal,
  ) => getJson<Answer>(`v1/${route}`, params, token, signal),
  // The list is cached for the extension's sake (max-age 300); the dashboard wants a site registered a
  // minute ago, so it revalidates.
  sites: () => getJson<{ sites: string[] }>('v1/sites', {}, '', undefined, 'no-cache'),
  whatif: (params: Record<string, string | undefined>, token: string, signal?: AbortSignal) =>
    getJson<WhatIfAnswer>('v1/whatif', params, token, signal),
  alerts: (params: Record<string, string | undefined>, token: string, signal?: AbortSignal) =>
    getJson<AlertsAnswer>('v1/alerts', params, token, signal),
  /** The last 30 days of the site's probes (history, latest profile, changes). */
  probes: (site: string, token: string, signal?: AbortSignal) =>
    getJson<ProbesAnswer>(
      `v1/sites/${encodeURIComponent(site)}/probes`,
      { from: String(Date.now() - 30 * 86_400_000) },
      token,
      signal,
    ),
};
