/** Every limit of the extension, in one place. */
export const DEFAULT_COLLECTOR_URL = 'http://127.0.0.1:8787';
export const AGENT_NAME = 'tlsrum-extension';
/** Records kept while the collector is unreachable; beyond it the oldest are dropped (and counted). */
export const MAX_QUEUED_RECORDS = 5_000;
/** Flush as soon as this many records wait (the alarm flushes the rest). */
export const DEFAULT_FLUSH_AT = 50;
/** Records per batch (the schema allows 500; smaller batches lose less to a rejected one). */
export const MAX_BATCH_RECORDS = 200;
/** The periodic flush alarm. Chromium enforces ≥ 30 s for packed extensions. */
export const FLUSH_PERIOD_MINUTES = 5;
/** The collector rejects timestamps more than 24 h old; records older than this are dropped before sending. */
export const MAX_RECORD_AGE_MS = 23 * 3_600_000;
/** Exponential backoff after a failed send: base × 2^attempt, capped, with jitter. */
export const BACKOFF_BASE_MS = 30_000;
export const BACKOFF_MAX_MS = 60 * 60_000;
/** A Retry-After above this is treated as this (a hostile or broken header must not silence us for days). */
export const RETRY_AFTER_MAX_MS = 6 * 3_600_000;
/** How long the registered-sites list is trusted before it is fetched again. */
export const SITES_TTL_MS = 10 * 60_000;
export const FETCH_TIMEOUT_MS = 15_000;
/** Own recent handshakes kept for the popup's "your visit vs the field". */
export const MAX_RECENT = 50;
/** Hosts remembered for the resumption-attempt hint (history of prior handshakes). */
export const MAX_HISTORY_HOSTS = 500;
/** The longest a handshake is remembered for the history hint, whatever a site's ticket lifetime. */
export const MAX_HISTORY_MS = 24 * 3_600_000;
export const PAUSE_MS = 3_600_000;
export const CONTENT_SCRIPT_ID = 'tlsrum-measure';
