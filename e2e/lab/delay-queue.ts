/**
 * Holds each chunk for a fixed one-way delay and releases chunks in arrival order. One timer per
 * direction (not one per chunk) so that a burst cannot reorder and timer cost stays flat.
 */
export const FIRST_CHUNKS = 6;

export class DelayQueue<T> {
  private readonly items: { due: number; arrived: number; item: T }[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** Measured hold times (release − arrival), ms: the proxy logs them as proof of the injected delay. */
  readonly held: number[] = [];
  /** Hold times of the first chunks (the handshake's flights), in order. */
  get first(): number[] {
    return this.held.slice(0, FIRST_CHUNKS).map((v) => Math.round(v * 100) / 100);
  }

  constructor(
    private readonly delayMs: number,
    private readonly release: (item: T) => void,
  ) {}

  push(item: T): void {
    const now = performance.now();
    if (this.delayMs <= 0 && this.items.length === 0) {
      this.held.push(0);
      this.release(item);
      return;
    }
    this.items.push({ due: now + this.delayMs, arrived: now, item });
    this.schedule();
  }

  get pending(): number {
    return this.items.length;
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.items.length = 0;
  }

  private schedule(): void {
    if (this.timer || this.items.length === 0) return;
    // Node truncates fractional delays: round up so that nothing is released early.
    const wait = Math.max(0, Math.ceil(this.items[0]!.due - performance.now()));
    this.timer = setTimeout(() => {
      this.timer = null;
      const now = performance.now();
      // Release everything due (setTimeout may fire ~1 ms late, never early).
      while (this.items.length && this.items[0]!.due <= now) {
        const { arrived, item } = this.items.shift()!;
        this.held.push(now - arrived);
        this.release(item);
      }
      this.schedule();
    }, wait);
  }
}

/** Calls fn no earlier than `ms` after `since` (performance.now() time base). */
export function atLeastAfter(since: number, ms: number, fn: () => void): void {
  const left = since + ms - performance.now();
  if (left <= 0) return fn();
  setTimeout(() => atLeastAfter(since, ms, fn), Math.ceil(left));
}

export function summarise(values: readonly number[]): { n: number; min: number; max: number; mean: number } {
  if (values.length === 0) return { n: 0, min: 0, max: 0, mean: 0 };
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const v of values) {
    min = Math.min(min, v);
    max = Math.max(max, v);
    sum += v;
  }
  const r = (x: number) => Math.round(x * 100) / 100;
  return { n: values.length, min: r(min), max: r(max), mean: r(sum / values.length) };
}
