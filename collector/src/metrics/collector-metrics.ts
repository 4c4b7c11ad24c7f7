/**
 * The collector's own series. Names follow Prometheus conventions (`_total` counters, base units).
 * `reason` values of rejected batches: invalid (400), too_large (413), unsupported (415),
 * rate_limited (429), spool_full / not_ready / pressure / spool_error (503), duplicate (202, not stored
 * again).
 */
import type { Registry } from './registry';

export type RejectReason =
  | 'invalid'
  | 'too_large'
  | 'unsupported'
  | 'rate_limited'
  | 'spool_full'
  | 'not_ready'
  | 'pressure'
  | 'spool_error'
  | 'duplicate';

export function collectorMetrics(registry: Registry) {
  return {
    batchesAccepted: registry.counter('tlsrum_batches_accepted_total', 'Batches acknowledged with 202 and spooled.'),
    recordsAccepted: registry.counter('tlsrum_records_accepted_total', 'Records acknowledged with 202 and spooled.'),
    batchesRejected: registry.counter('tlsrum_batches_rejected_total', 'Ingest requests not stored, by reason.', ['reason']),
    recordsRejected: registry.counter(
      'tlsrum_records_rejected_total',
      'Records not stored, by reason (only where the body could be read: spool_full, not_ready, spool_error, duplicate, pressure).',
      ['reason'],
    ),
    responses: registry.counter('tlsrum_http_responses_total', 'HTTP responses by status code.', ['status']),
    flushDuration: registry.histogram(
      'tlsrum_flush_duration_seconds',
      'Time to read one spool segment and insert it into the store.',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    ),
    rowsFlushed: registry.counter('tlsrum_rows_flushed_total', 'Rows inserted into the store from the spool.'),
    storeErrors: registry.counter('tlsrum_store_errors_total', 'Failed inserts into the store (each is retried).'),
  };
}

export type CollectorMetrics = ReturnType<typeof collectorMetrics>;
