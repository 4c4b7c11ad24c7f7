/** Retry timing after a failed send. Pure: the caller supplies the random number. */
import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, RETRY_AFTER_MAX_MS } from './constants';

/**
 * Exponential backoff with "equal jitter": the delay doubles with each consecutive failure up to the
 * cap, and a random half of it is added so that many clients that failed together (a collector
 * restart) do not come back together.
 */
export function backoffDelay(attempt: number, random: number, base = BACKOFF_BASE_MS, max = BACKOFF_MAX_MS): number {
  const ceiling = Math.min(max, base * 2 ** Math.max(0, Math.min(attempt, 30)));
  return Math.round(ceiling / 2 + (ceiling / 2) * Math.min(Math.max(random, 0), 1));
}

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP-date (RFC 9110 §10.2.3). Null when
 * absent or unreadable; clamped to [0, RETRY_AFTER_MAX_MS].
 */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const value = header.trim();
  let ms: number;
  if (/^\d+$/.test(value)) ms = Number(value) * 1000;
  else {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS);
}
