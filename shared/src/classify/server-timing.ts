/**
 * A site's own statement of what its server negotiated, sent as a Server-Timing metric named `tls`.
 * The form (nginx):
 *
 *     add_header Server-Timing 'tls;desc="$ssl_protocol $ssl_session_reused"' always;
 *
 * gives `tls;desc="TLSv1.3 r"` (resumed) or `tls;desc="TLSv1.2 ."` (full handshake). Browsers expose it
 * to the page (and so to the content script) as `PerformanceServerTiming {name: "tls", description}`
 * on same-origin entries and on cross-origin entries with Timing-Allow-Origin. When present it is the
 * source of truth for the connection's TLS version and resumption: the server knows.
 */
import type { TlsVersion } from '../constants';
import type { SecurityInfo } from './classify';

export const SERVER_TIMING_METRIC = 'tls';

// nginx / Apache / HAProxy / Node write TLSv1.x, Caddy tls1.x (docs/server-timing.md).
const VERSIONS: Record<string, TlsVersion> = {
  'tlsv1.2': '1.2',
  'tls1.2': '1.2',
  '1.2': '1.2',
  'tlsv1.3': '1.3',
  'tls1.3': '1.3',
  '1.3': '1.3',
};
// nginx r / . ; Caddy true / false; Apache Resumed (its Initial is left out: not said to be a full handshake).
const RESUMED: Record<string, boolean> = { r: true, resumed: true, true: true, '.': false, full: false, false: false };

/**
 * Parses the `desc` of a `tls` Server-Timing metric. Unknown tokens are ignored; a version outside
 * 1.2/1.3 (e.g. `TLSv1.1`) gives no version. Returns null when nothing usable is in it.
 */
export function parseTlsServerTiming(description: string | null | undefined): SecurityInfo | null {
  if (typeof description !== 'string' || description.length > 200) return null;
  let tlsVersion: TlsVersion | null = null;
  let resumed: boolean | null = null;
  for (const raw of description.trim().split(/[\s,]+/)) {
    const token = raw.toLowerCase();
    if (token in VERSIONS) tlsVersion = VERSIONS[token]!;
    else if (token in RESUMED) resumed = RESUMED[token]!;
  }
  if (tlsVersion === null && resumed === null) return null;
  return { evidence: 'server-timing', tlsVersion, resumed };
}

/** Finds the `tls` metric among an entry's Server-Timing metrics (`{name, description}` pairs). */
export function tlsFromServerTiming(
  metrics: ReadonlyArray<{ name: string; description: string }> | null | undefined,
): SecurityInfo | null {
  if (!metrics) return null;
  for (const m of metrics) if (m.name === SERVER_TIMING_METRIC) return parseTlsServerTiming(m.description);
  return null;
}
