/**
 * Long synchronous work written once, run two ways. A step is a generator that `yield`s wherever it may
 * pause (between slices of its loops); `runNow` runs it to the end at once (the pure API, tests, the lab),
 * `runBetweenRequests` hands the thread back to the collector's other requests whenever `budgetMs` of work
 * has passed since it last did, so neither a what-if over half a million connections nor the per-client
 * cap's start-up counts (ingest/client-cap.ts) hold a light reader for longer than that; and stops there
 * when the request it works for is gone (the reader left), as its queries do (store/query-pool.ts).
 */
import { querySignal } from './store/query-pool';

export type Work<T> = Generator<void, T, void>;

/**
 * Connections handled between two possible pauses of a loop: a slice of the what-if's heaviest loops takes
 * a few milliseconds on a slow core (8 192 took 15–48 ms, each a stall of every other request).
 */
export const SLICE = 2048;

export function runNow<T>(work: Work<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Runs `work`, pausing for a turn of the event loop once it has worked `budgetMs` without one; throws the
 * request's abort reason at a pause once its reader has gone.
 */
export async function runBetweenRequests<T>(work: Work<T>, budgetMs = 10): Promise<T> {
  const signal = querySignal.getStore();
  signal?.throwIfAborted();
  let since = performance.now();
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() - since >= budgetMs) {
      await nextTurn();
      signal?.throwIfAborted();
      since = performance.now();
    }
  }
}

/**
 * The rows of a store's answer in JSONCompactEachRow (one JSON array per line), each turned into a `T` by
 * `row`, a slice of lines at a time: tens of thousands of rows parse in tens of milliseconds.
 */
export function* compactRows<T>(text: string, row: (values: unknown[]) => T): Work<T[]> {
  const out: T[] = [];
  for (let at = 0, line = 0; at < text.length; line++) {
    if (line % SLICE === 0) yield;
    const end = text.indexOf('\n', at);
    const values = text.slice(at, end === -1 ? text.length : end);
    at = end === -1 ? text.length : end + 1;
    if (values) out.push(row(JSON.parse(values) as unknown[]));
  }
  return out;
}
