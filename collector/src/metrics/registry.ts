/**
 * A small Prometheus registry (text exposition format 0.0.4): counters, gauges and histograms with
 * labels. Hand-rolled because the collector needs a dozen series, not prom-client's default process
 * collectors. Others add their own series through the `app.registry` decorator (see plugins/metrics.ts):
 *
 *   const g = app.registry.gauge('tlsrum_site_resumption_ratio', 'Share of resumed handshakes', ['site']);
 *   g.set({ site: 'www.example.com' }, 0.42);
 *   app.registry.gauge('tlsrum_x', 'computed at scrape time', [], () => [[{}, compute()]]);
 */

type Labels = Record<string, string>;
type Kind = 'counter' | 'gauge' | 'histogram';

interface Metric {
  name: string;
  help: string;
  kind: Kind;
  render(): string[];
}

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(names: readonly string[], labels: Labels, extra = ''): string {
  const parts = names.map((n) => `${n}="${escapeLabel(labels[n] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

class Series<V> {
  protected readonly values = new Map<string, { labels: Labels; value: V }>();
  constructor(protected readonly labelNames: readonly string[]) {}

  protected key(labels: Labels): string {
    for (const k of Object.keys(labels)) {
      if (!this.labelNames.includes(k)) throw new Error(`unknown label "${k}"`);
    }
    return this.labelNames.map((n) => labels[n] ?? '').join('\u0000');
  }
}

/** A counter or gauge: one number per label set, kept here or read at scrape time from `collect`. */
abstract class NumberSeries extends Series<number> {
  constructor(
    readonly name: string,
    readonly help: string,
    labelNames: readonly string[] = [],
    protected readonly collect?: () => Iterable<[Labels, number]>,
  ) {
    super(labelNames);
  }

  protected entries(): { labels: Labels; value: number }[] {
    return this.collect ? [...this.collect()].map(([labels, value]) => ({ labels, value })) : [...this.values.values()];
  }

  protected lookup(labels: Labels): number | undefined {
    const k = this.key(labels);
    if (!this.collect) return this.values.get(k)?.value;
    for (const [l, v] of this.collect()) if (this.key(l) === k) return v;
    return undefined;
  }

  render(): string[] {
    return this.entries().map((e) => `${this.name}${labelText(this.labelNames, e.labels)} ${num(e.value)}`);
  }
}

/** Goes up by `inc`, or is read at scrape time from a monotonic source (`collect`). */
export class Counter extends NumberSeries implements Metric {
  readonly kind = 'counter' as const;

  inc(labels: Labels = {}, by = 1): void {
    if (by < 0) throw new RangeError('a counter only goes up');
    const k = this.key(labels);
    const e = this.values.get(k);
    if (e) e.value += by;
    else this.values.set(k, { labels: { ...labels }, value: by });
  }

  get(labels: Labels = {}): number {
    return this.lookup(labels) ?? 0;
  }

  override render(): string[] {
    // An unlabelled counter exists from the start: 0 until the first `inc`.
    const lines = super.render();
    return lines.length === 0 && this.labelNames.length === 0 ? [`${this.name} 0`] : lines;
  }
}

/** Set to any value, or computed at scrape time (`collect`). */
export class Gauge extends NumberSeries implements Metric {
  readonly kind = 'gauge' as const;

  set(labels: Labels, value: number): void {
    this.values.set(this.key(labels), { labels: { ...labels }, value });
  }

  /** Removes one labelled series (e.g. an alert that cleared) or all of them. */
  reset(labels?: Labels): void {
    if (labels) this.values.delete(this.key(labels));
    else this.values.clear();
  }

  get(labels: Labels = {}): number | undefined {
    return this.lookup(labels);
  }
}

export class Histogram extends Series<{ buckets: number[]; sum: number; count: number }> implements Metric {
  readonly kind = 'histogram' as const;
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    labelNames: readonly string[] = [],
  ) {
    super(labelNames);
  }

  observe(value: number, labels: Labels = {}): void {
    const k = this.key(labels);
    let e = this.values.get(k);
    if (!e) {
      e = { labels: { ...labels }, value: { buckets: this.bounds.map(() => 0), sum: 0, count: 0 } };
      this.values.set(k, e);
    }
    this.bounds.forEach((b, i) => {
      if (value <= b) e.value.buckets[i]! += 1;
    });
    e.value.sum += value;
    e.value.count += 1;
  }

  count(labels: Labels = {}): number {
    return this.values.get(this.key(labels))?.value.count ?? 0;
  }

  render(): string[] {
    const out: string[] = [];
    for (const e of this.values.values()) {
      this.bounds.forEach((b, i) => out.push(`${this.name}_bucket${labelText(this.labelNames, e.labels, `le="${num(b)}"`)} ${e.value.buckets[i]}`));
      out.push(`${this.name}_bucket${labelText(this.labelNames, e.labels, 'le="+Inf"')} ${e.value.count}`);
      out.push(`${this.name}_sum${labelText(this.labelNames, e.labels)} ${num(e.value.sum)}`);
      out.push(`${this.name}_count${labelText(this.labelNames, e.labels)} ${e.value.count}`);
    }
    return out;
  }
}

export class Registry {
  private readonly metrics = new Map<string, Metric>();

  private add<M extends Metric>(m: M): M {
    if (!NAME_RE.test(m.name)) throw new Error(`bad metric name "${m.name}"`);
    const existing = this.metrics.get(m.name);
    if (existing) {
      if (existing.kind !== m.kind) throw new Error(`metric "${m.name}" already registered as a ${existing.kind}`);
      return existing as M;
    }
    this.metrics.set(m.name, m);
    return m;
  }

  counter(name: string, help: string, labelNames: readonly string[] = [], collect?: () => Iterable<[Labels, number]>): Counter {
    return this.add(new Counter(name, help, labelNames, collect));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = [], collect?: () => Iterable<[Labels, number]>): Gauge {
    return this.add(new Gauge(name, help, labelNames, collect));
  }

  histogram(name: string, help: string, bounds: readonly number[], labelNames: readonly string[] = []): Histogram {
    return this.add(new Histogram(name, help, [...bounds].sort((a, b) => a - b), labelNames));
  }

  get(name: string): Metric | undefined {
    return this.metrics.get(name);
  }

  /** The exposition text served at /metrics. */
  render(): string {
    const lines: string[] = [];
    for (const m of this.metrics.values()) {
      lines.push(`# HELP ${m.name} ${m.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`, `# TYPE ${m.name} ${m.kind}`, ...m.render());
    }
    return lines.join('\n') + '\n';
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
