/** "Your visit vs the field": the query API's per-class answer → what the popup shows. Pure. */
import type { FieldPercentiles } from '../messages';

/**
 * `GET /v1/compare?dimensions=handshakeClass` answers `{cells: [{key: {handshakeClass}, records,
 * tls: {p50, p75, p95}}, …]}`; cells with too few distinct clients come back `{key, suppressed: true}`
 * without numbers and are left out here.
 */
export function fieldFromCompare(
  body: unknown,
  scope: Pick<FieldPercentiles, 'scope' | 'site'> = { scope: 'all', site: null },
): FieldPercentiles {
  const cells = (body as { cells?: unknown } | null)?.cells;
  const byClass: FieldPercentiles['byClass'] = {};
  for (const cell of Array.isArray(cells) ? cells : []) {
    const c = cell as {
      key?: { handshakeClass?: string };
      suppressed?: boolean;
      records?: number;
      tls?: { p50?: number; p75?: number; p95?: number };
    };
    const cls = c?.key?.handshakeClass;
    if (c.suppressed || !cls || !['full-2rtt', '1rtt', '0rtt', 'unknown'].includes(cls)) continue;
    if (typeof c.tls?.p50 !== 'number' || typeof c.tls?.p75 !== 'number') continue;
    byClass[cls as keyof FieldPercentiles['byClass']] = {
      p50: c.tls.p50,
      p75: c.tls.p75,
      ...(typeof c.tls.p95 === 'number' ? { p95: c.tls.p95 } : {}),
      records: Number(c.records ?? 0),
    };
  }
  const available = Object.keys(byClass).length > 0;
  return available
    ? { available, byClass, ...scope }
    : { available, byClass, ...scope, note: 'no field data for these classes yet' };
}
