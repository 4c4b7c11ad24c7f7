/**
 * The collector's own series. Names follow Prometheus conventions (`_total` counters, base units).
 * `reason` values of rejected batches: invalid (400), unauthorized (401: an unknown read token), forbidden
 * (403: a record that is not the token's site's synthetic run), too_large (413), unsupported (415),
 * rate_limited (429), spool_full / not_ready / pressure / spool_error (503), duplicate (202, not stored
 * again).
 */
import { Counter, Histogram, type Registry } from 'prom-client';

export type RejectReason =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'too_large'
  | 'unsupported'
  | 'rate_limited'
  | 'spool_full'
  | 'not_ready'
  | 'pressure'
  | 'spool_error'
  | 'duplicate';

export function collectorMetrics(registry: Registry) {
  const registers = [registry];
  return {
    batchesAccepted: new Counter({
      name: 'tlsrum_batches_accepted_total',
      help: 'Batches acknowledged with 202 and spooled.',
      registers,
    }),
    recordsAccepted: new Counter({
      name: 'tlsrum_records_accepted_total',
      help: 'Records acknowledged with 202 and spooled.',
      registers,
    }),
    batchesRejected: new Counter({
      name: 'tlsrum_batches_rejected_total',
      help: 'Ingest requests not stored, by reason.',
      labelNames: ['reason'] as const,
      registers,
    }),
    recordsRejected: new Counter({
      name: 'tlsrum_records_rejected_total',
      help: 'Records not stored, by reason (only where the body could be read: spool_full, not_ready, spool_error, duplicate, pressure).',
      labelNames: ['reason'] as const,
      registers,
    }),
    responses: new Counter({
      name: 'tlsrum_http_responses_total',
      help: 'HTTP responses by status code.',
      labelNames: ['status'] as const,
      registers,
    }),
    flushDuration: new Histogram({
      name: 'tlsrum_flush_duration_seconds',
      help: 'Time to read one spool segment and insert it into the store.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    rowsFlushed: new Counter({
      name: 'tlsrum_rows_flushed_total',
      help: 'Rows inserted into the store from the spool.',
      registers,
    }),
    storeErrors: new Counter({
      name: 'tlsrum_store_errors_total',
      help: 'Failed inserts into the store (each is retried).',
      registers,
    }),
  };
}

export type CollectorMetrics = ReturnType<typeof collectorMetrics>;
