/**
 * A beacon's page view → the records it stands for, with the shared classifier (the extension's
 * background does the same with its content script's tuples): each tuple checked again and turned into
 * a Measurement; only new TLS connections to the site's hostnames kept; classified with the site's
 * profile; the browser and OS read from the request's User-Agent and Sec-CH-UA headers; `source: 'page'`
 * and the client token the collector derived.
 */
import { randomUUID } from 'node:crypto';
import {
  connectionKind,
  detectEnvironment,
  HTTPS_ENTRY,
  measuredFields,
  MAX_PHASE_MS,
  measurementOf,
  type BeaconBody,
  type Environment,
  type HandshakeBatch,
  type HandshakeRecord,
  type SiteProfile,
  type UaData,
} from '@tlsrum/shared';
import { httpError } from '../../platform/http/error-handler';

export const BEACON_AGENT = { name: '@tlsrum/beacon', version: '1' } as const;

export interface PageView {
  body: BeaconBody;
  /** The site's hostnames: its own and the extra ones registered for it. */
  hostnames: ReadonlySet<string>;
  env: Environment;
  clientToken: string;
  profile: SiteProfile | null;
  now: number;
}

/** Entries left out, by why (none is an error: the page's filter and the collector's may differ). */
export interface LeftOut {
  /** To a hostname that is not the site's. */
  otherHost: number;
  /** Over a reused or opaque connection, without TLS, or with fields out of order. */
  notNew: number;
}

/** The batch (null when no entry is left), what was left out, and the entry each record came from. */
export function pageViewBatch(v: PageView): { batch: HandshakeBatch | null; leftOut: LeftOut; entryOf: number[] } {
  const leftOut: LeftOut = { otherHost: 0, notNew: 0 };
  const records: HandshakeRecord[] = [];
  const entryOf: number[] = [];
  v.body.entries.forEach((tuple, i) => {
    const m = measurementOf(tuple, v.body.timeOrigin);
    if (!m)
      throw httpError(
        400,
        `body/entries/${i} is not an entry tuple (a hostname, the entry type, nextHopProtocol, the tls Server-Timing or null, then nine times in ms after the time origin, the connection starting no earlier than its fetch and at most ${MAX_PHASE_MS} ms before the origin)`,
      );
    if (!v.hostnames.has(m.host)) return void leftOut.otherHost++;
    if (connectionKind(m.timing, HTTPS_ENTRY) !== 'new') return void leftOut.notNew++;
    const { fields } = measuredFields({
      timing: m.timing,
      connectStartEpochMs: m.startEpochMs,
      site: v.body.site,
      serverTiming: m.serverTiming ?? null,
      // A page knows nothing of the visitor's earlier handshakes: no history, so no resumption guessed from it.
      history: null,
      profile: v.profile,
      env: v.env,
    });
    records.push({ ...fields, effectiveType: null, rttHint: null, source: 'page', clientToken: v.clientToken });
    entryOf.push(i);
  });
  if (!records.length) return { batch: null, leftOut, entryOf };
  return {
    batch: { v: 1, batchId: randomUUID(), sentAt: v.now, agent: { ...BEACON_AGENT }, records },
    leftOut,
    entryOf,
  };
}

/** The client's browser and OS from its request headers (every browser sends User-Agent; Chromium adds Sec-CH-UA). */
export function environmentOf(headers: Record<string, string | string[] | undefined>): Environment {
  const one = (name: string) => {
    const v = headers[name];
    return (Array.isArray(v) ? v[0] : v)?.slice(0, 512) ?? '';
  };
  const uaData: UaData = {};
  const brands = [...one('sec-ch-ua').matchAll(/"([^"]{1,64})";\s*v="(\d{1,5})"/g)].map((b) => ({
    brand: b[1]!,
    version: b[2]!,
  }));
  if (brands.length) uaData.brands = brands;
  const platform = /^"([^"]{1,32})"$/.exec(one('sec-ch-ua-platform'))?.[1];
  if (platform) uaData.platform = platform;
  return detectEnvironment(one('user-agent'), uaData);
}
