/**
 * What a site's own beacon posts to the collector (`POST /v1/beacon`), one body per page view: the
 * page's new TLS connections to the site's own hosts as entry tuples (classify/entry-tuple.ts), never a
 * URL, a path or a client token. JSON sent as `text/plain` — a body `navigator.sendBeacon` can send
 * cross-origin without a CORS preflight. The collector classifies the tuples with the shared classifier
 * (and the site's profile) and derives the client identity itself.
 */
import type { EntryTuple } from './classify/entry-tuple';

export const BEACON_VERSION = 1;
export const BEACON_PATH = '/v1/beacon';
/** `sendBeacon` and `fetch(…, {keepalive: true})` share a 64 KiB in-flight budget per page. */
export const BEACON_MAX_BYTES = 65_536;
/** New connections one page view sends at most (a tuple is ≈ 120 bytes: well within BEACON_MAX_BYTES). */
export const BEACON_MAX_ENTRIES = 200;

export interface BeaconBody {
  v: typeof BEACON_VERSION;
  /** The registered site (the tag's `data-site`): its hostname. */
  site: string;
  /** The page's performance.timeOrigin (epoch ms): the tuples' times are relative to it. */
  timeOrigin: number;
  entries: EntryTuple[];
}
