/**
 * Holds each chunk for a fixed one-way delay and releases chunks in arrival order. Every chunk is due
 * at its own arrival + delay (a burst is not delayed once per chunk), and one pending wake-up per
 * direction (not one timer per chunk) keeps a burst in order and timer cost flat.
 */
// Enough for the handshake's flights (QUIC's, with acknowledgements, included).
export const FIRST_CHUNKS = 12;

/**
 * Node's timers have whole-millisecond resolution and run late by up to ~1 ms on an idle machine (more
 * under load), which alone put a 1-RTT handshake at 20 ms RTT outside a 2 ms tolerance. So a wake-up
 * sleeps on a timer until SPIN_MS before it is due and then polls the monotonic clock once per event
 * loop turn (setImmediate: I/O of other connections is still served in between) until it is due.
 */
const SPIN_MS = 2;

export interface Wakeup {
  cancel(): void;
}

/**
 * Calls fn as soon as performance.now() ≥ due, never before — and never inside at() itself, even when
 * due has passed: the caller stores the returned Wakeup first. (DelayQueue keeps one pending wake-up and
 * re-arms from inside fn; a synchronous fn used to re-arm, and the caller then overwrote the new wake-up
 * with this spent one, so the queue never woke again: a chunk that became due while the previous one was
 * being released stalled its direction for good — nginx closed the idle connection 1 s later and
 * Firefox's navigation failed with NS_ERROR_ABORT.)
 */
export function at(due: number, fn: () => void): Wakeup {
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  let cancelled = false;
  const wait = () => {
    const left = due - performance.now();
    if (left > SPIN_MS) timer = setTimeout(step, Math.floor(left - SPIN_MS));
    else immediate = setImmediate(step);
  };
  const step = () => {
    timer = null;
    immediate = null;
    if (cancelled) return;
    if (performance.now() >= due) return fn();
    wait();
  };
  wait();
  return {
    cancel() {
      cancelled = true;
      if (timer) clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    },
  };
}

/** Calls fn no earlier than `ms` after `since` (performance.now() time base). */
export function atLeastAfter(since: number, ms: number, fn: () => void): Wakeup {
  return at(since + ms, fn);
}

export class DelayQueue<T> {
  private readonly items: { due: number; arrived: number; item: T }[] = [];
  private wakeup: Wakeup | null = null;
  /** Measured hold times (release − arrival), ms: the proxy logs them as proof of the injected delay. */
  readonly held: number[] = [];
  /** Arrival times (performance.now()) of the first chunks, to tell flights apart in the log. */
  readonly arrivals: number[] = [];
  /** Hold times of the first chunks (the handshake's flights), in order. */
  get first(): number[] {
    return this.held.slice(0, FIRST_CHUNKS).map(round2);
  }
  /** Arrival times of the first chunks relative to `since`: shows which chunks form one flight. */
  arrivedSince(since: number): number[] {
    return this.arrivals.map((t) => round2(t - since));
  }

  /**
   * `burstMs`: chunks that arrived within this long after the first waiting one leave together, when
   * the last of them is due (the first is then up to burstMs late, and logged so): a burst stays a burst.
   */
  constructor(
    private readonly delayMs: number,
    private readonly release: (item: T) => void,
    private readonly burstMs = 0,
  ) {}

  push(item: T): void {
    const now = performance.now();
    if (this.arrivals.length < FIRST_CHUNKS) this.arrivals.push(now);
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
    this.wakeup?.cancel();
    this.wakeup = null;
    this.items.length = 0;
  }

  /** When the first waiting chunk may leave: its own due time, or that of the last chunk of its burst. */
  private releaseAt(): number {
    const head = this.items[0]!;
    let due = head.due;
    for (const it of this.items) {
      if (it.arrived - head.arrived > this.burstMs) break;
      due = it.due;
    }
    return due;
  }

  private schedule(): void {
    if (this.wakeup || this.items.length === 0) return;
    this.wakeup = at(this.releaseAt(), () => {
      this.wakeup = null;
      // A chunk of the burst may have arrived after this wake-up was set.
      if (this.releaseAt() > performance.now()) return this.schedule();
      const now = performance.now();
      while (this.items.length && this.items[0]!.due <= now) {
        const { arrived, item } = this.items.shift()!;
        this.held.push(now - arrived);
        this.release(item);
      }
      this.schedule();
    });
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

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
  return { n: values.length, min: round2(min), max: round2(max), mean: round2(sum / values.length) };
}
