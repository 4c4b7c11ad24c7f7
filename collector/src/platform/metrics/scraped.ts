/**
 * Series whose value lives elsewhere (the spool's size, the alert evaluator's verdicts) and is read when
 * Prometheus scrapes, through prom-client's `collect()`: nothing to keep in step between scrapes, and a
 * labelled series that `read` no longer returns (a site unregistered) disappears instead of going stale.
 */
import { Counter, Gauge, type LabelValues, type Registry } from 'prom-client';

export interface ScrapedSeries<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** One number for an unlabelled series, or every labelled series with its value. */
  read: () => number | Iterable<readonly [LabelValues<L>, number]>;
}

const options = <L extends string>(registry: Registry, s: ScrapedSeries<L>) => ({
  name: s.name,
  help: s.help,
  labelNames: s.labelNames ?? [],
  registers: [registry],
});

/** Hands every value `read` returns to `put` (an unlabelled one with no labels). */
function readInto<L extends string>(s: ScrapedSeries<L>, put: (labels: LabelValues<L>, value: number) => void): void {
  const v = s.read();
  if (typeof v === 'number') put({}, v);
  else for (const [labels, value] of v) put(labels, value);
}

/** A gauge computed at scrape time. */
export function scrapedGauge<L extends string = never>(registry: Registry, s: ScrapedSeries<L>): Gauge<L> {
  return new Gauge<L>({
    ...options(registry, s),
    collect() {
      this.reset();
      readInto(s, (labels, value) => this.set(labels, value));
    },
  });
}

/** A counter kept by its owner as a plain number (it only goes up there), read at scrape time. */
export function scrapedCounter<L extends string = never>(registry: Registry, s: ScrapedSeries<L>): Counter<L> {
  return new Counter<L>({
    ...options(registry, s),
    collect() {
      // prom-client counters have no `set`: start from zero and add the owner's total.
      this.reset();
      readInto(s, (labels, value) => this.inc(labels, value));
    },
  });
}
