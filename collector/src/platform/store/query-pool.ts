/**
 * The read side of the store as a small pool: QUERY_CONCURRENCY clients (each serializes its own calls),
 * a bounded wait queue, and a time and memory limit on every query, so one heavy query holds one slot
 * and the others keep answering. A full queue refuses at once with QueryBusyError (503 + Retry-After)
 * instead of letting every reader wait, and so does a wait of twice a query's time limit (the slots held
 * past what their own limits allow: no reader waits for ever); a query whose caller has gone away (its
 * AbortSignal fired while it waited) is dropped before it runs.
 *
 * Work no reader waits for (the kept answers' refreshes, `backgroundQuery`) holds at most one slot, runs
 * on one of the store's threads, and a reader's query waiting for a slot goes before it: a view in use whose
 * answers turn stale all together does not hold every slot and core while its next reader asks.
 *
 * A reader's query that reads many rows (`heavyQuery`: the raw table, the what-if's connections) holds at
 * most all slots but one, and a light reader's query waiting goes before it: two or more heavy questions
 * asked at once, with a token or without, take turns in their slots instead of leaving the dashboard's light
 * ones waiting seconds behind them; and they wait in at most half the queue, so a flood of them is refused as
 * busy while a dashboard's burst of light questions still finds room to wait. The two limits are apart: while
 * background work holds a slot, a heavy query may hold another, so on two slots a light query can wait behind
 * both (a closed month's merge is the long background work, once a month; sharing one limit would refuse the
 * dashboard's what-if for its length).
 *
 * It is handed out as a ClickHouseClient, so the query builders take it like any client.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';

export interface QueryPoolOptions {
  size: number;
  queueMax: number;
  timeoutMs: number;
  /** 0: the store's own limit. */
  maxMemoryBytes: number;
  /** Told of every read query once the store has answered or failed it (the collector logs it at debug level). */
  onQuery?: (q: QueryTiming) => void;
}

/** One read query as the pool saw it: time waiting for a slot, time in the store, and its SQL (no parameters). */
export interface QueryTiming {
  waitMs: number;
  runMs: number;
  sql: string;
  failed: boolean;
  /** How it took its turn: a light reader's, a heavy reader's (`heavyQuery`), background work (`backgroundQuery`). */
  kind: Kind;
}

export class QueryBusyError extends Error {
  override name = 'QueryBusyError';
  constructor(readonly retryAfterSeconds: number) {
    super(`the collector is busy answering other queries; retry in ${retryAfterSeconds} s`);
  }
}

/** The abort signal of the request a query is made for (set per request by the read routes' hook). */
export const querySignal = new AsyncLocalStorage<AbortSignal>();

/** Set around work no reader waits for (the kept answers' refreshes, marked in query/routes/read.ts): its queries yield to readers'. */
export const backgroundQuery = new AsyncLocalStorage<true>();

/**
 * Set around a reader's query that reads many rows (query/cells.ts, whatif/query.ts): heavy queries hold at
 * most all slots but one, so a light reader always finds one free or next.
 */
export const heavyQuery = new AsyncLocalStorage<true>();

/** Runs `fn` with its queries marked heavy when `heavy` (a read of the raw table, say). */
export function heavyWhen<T>(heavy: boolean, fn: () => Promise<T>): Promise<T> {
  return heavy ? heavyQuery.run(true, fn) : fn();
}

/** How a query takes its turn: a light reader's, a heavy reader's (heavyQuery), or work no reader waits for. */
export type Kind = 'light' | 'heavy' | 'background';

/** The kind of the query asked now (background work wins: it is already on one thread). */
function kindNow(): Kind {
  if (backgroundQuery.getStore() === true) return 'background';
  return heavyQuery.getStore() === true ? 'heavy' : 'light';
}

/** What a query worked out for no waiting reader runs with: one thread, leaving the others to readers. */
const BACKGROUND_SETTINGS: ClickHouseSettings = { max_threads: 1 };
/** Slots background work may hold at once. */
const BACKGROUND_SLOTS = 1;

interface Waiter {
  kind: Kind;
  resolve: (c: ClickHouseClient) => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  /** Refuses the waiter as busy once it has waited twice a query's time limit. */
  timer: ReturnType<typeof setTimeout>;
}

export class QueryPool {
  private readonly clients: ClickHouseClient[];
  private readonly idle: ClickHouseClient[];
  private readonly waiting: Waiter[] = [];
  /**
   * Queries run (of them heavy, and as background work), refused as busy, dropped because their caller left: for
   * /metrics and tests.
   */
  readonly counts = { run: 0, heavy: 0, background: 0, busy: 0, abandoned: 0 };
  private readonly settings: ClickHouseSettings;
  /** Slots held now by heavy readers' queries and by background work, and the most each may hold. */
  private readonly held: Record<Exclude<Kind, 'light'>, number> = { heavy: 0, background: 0 };
  private readonly most: Record<Exclude<Kind, 'light'>, number>;
  /** Heavy readers' queries that may wait at once: half the queue. */
  private readonly heavyWaitMax: number;

  constructor(
    make: () => ClickHouseClient,
    private readonly opts: QueryPoolOptions,
  ) {
    this.clients = Array.from({ length: opts.size }, make);
    this.idle = [...this.clients];
    // All slots but one for heavy readers: with a single slot, that one.
    this.most = { heavy: Math.max(1, opts.size - 1), background: BACKGROUND_SLOTS };
    this.heavyWaitMax = Math.ceil(opts.queueMax / 2);
    this.settings = {
      // Whole seconds in the store's setting; a wait in the queue is bounded by twice that time (acquire).
      max_execution_time: Math.max(1, Math.ceil(opts.timeoutMs / 1000)),
      ...(opts.maxMemoryBytes > 0 ? { max_memory_usage: String(opts.maxMemoryBytes) } : {}),
    };
  }

  get active(): number {
    return this.clients.length - this.idle.length;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Seconds a refused reader should wait: about one query time per round of the queue. */
  private retryAfter(): number {
    return Math.max(1, Math.ceil(this.opts.timeoutMs / 1000 / 4));
  }

  /** Whether a query of this kind may take one more slot now (a light reader's always may). */
  private mayTake(kind: Kind): boolean {
    return kind === 'light' || this.held[kind] < this.most[kind];
  }

  private take(kind: Kind): void {
    if (kind !== 'light') this.held[kind]++;
  }

  private acquire(signal: AbortSignal | undefined, kind: Kind): Promise<ClickHouseClient> {
    if (signal?.aborted) {
      this.counts.abandoned++;
      return Promise.reject(signal.reason ?? new Error('aborted'));
    }
    if (this.mayTake(kind)) {
      const free = this.idle.pop();
      if (free) {
        this.take(kind);
        return Promise.resolve(free);
      }
    }
    const full =
      this.waiting.length >= this.opts.queueMax ||
      (kind === 'heavy' && this.waiting.filter((w) => w.kind === 'heavy').length >= this.heavyWaitMax);
    if (full) {
      this.counts.busy++;
      return Promise.reject(new QueryBusyError(this.retryAfter()));
    }
    return new Promise((resolve, reject) => {
      const leave = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', waiter.onAbort);
      };
      const waiter: Waiter = {
        kind,
        resolve,
        reject,
        signal,
        onAbort: () => {
          leave();
          this.counts.abandoned++;
          reject(signal?.reason ?? new Error('aborted'));
        },
        timer: setTimeout(() => {
          leave();
          this.counts.busy++;
          reject(new QueryBusyError(this.retryAfter()));
        }, 2 * this.opts.timeoutMs),
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /**
   * Gives the slot to the first light reader waiting, else to the first heavy reader if heavy queries may hold
   * one more, else to the first background work if it may.
   */
  private release(client: ClickHouseClient, kind: Kind): void {
    if (kind !== 'light') this.held[kind]--;
    let i = -1;
    for (const k of ['light', 'heavy', 'background'] as const) {
      if (this.mayTake(k)) i = this.waiting.findIndex((w) => w.kind === k);
      if (i >= 0) break;
    }
    if (i < 0) {
      this.idle.push(client);
      return;
    }
    const [next] = this.waiting.splice(i, 1);
    next!.signal?.removeEventListener('abort', next!.onAbort);
    clearTimeout(next!.timer);
    this.take(next!.kind);
    next!.resolve(client);
  }

  /** Runs `fn` on a free client (waiting in the queue for one), then gives the client back. */
  async run<T>(fn: (client: ClickHouseClient, signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const signal = querySignal.getStore();
    const kind = kindNow();
    const client = await this.acquire(signal, kind);
    this.counts.run++;
    if (kind !== 'light') this.counts[kind]++;
    try {
      return await fn(client, signal);
    } finally {
      this.release(client, kind);
    }
  }

  /** The pool as a client: queries carry the limits and the caller's abort signal. */
  asClient(): ClickHouseClient {
    const withLimits = <P extends { clickhouse_settings?: ClickHouseSettings; abort_signal?: AbortSignal }>(
      p: P,
      signal: AbortSignal | undefined,
    ): P => ({
      ...p,
      clickhouse_settings: {
        ...this.settings,
        ...p.clickhouse_settings,
        ...(backgroundQuery.getStore() ? BACKGROUND_SETTINGS : {}),
      },
      ...(signal && !p.abort_signal ? { abort_signal: signal } : {}),
    });
    const client = {
      query: (p: Parameters<ClickHouseClient['query']>[0]) => {
        const report = this.opts.onQuery;
        if (!report) return this.run((c, s) => c.query(withLimits(p, s)));
        const asked = performance.now();
        return this.run(async (c, s) => {
          const started = performance.now();
          let failed = true;
          try {
            const result = await c.query(withLimits(p, s));
            failed = false;
            return result;
          } finally {
            const ended = performance.now();
            report({ waitMs: started - asked, runMs: ended - started, sql: p.query, failed, kind: kindNow() });
          }
        });
      },
      command: (p: Parameters<ClickHouseClient['command']>[0]) => this.run((c) => c.command(p)),
      exec: (p: Parameters<ClickHouseClient['exec']>[0]) => this.run((c) => c.exec(p)),
      insert: (p: Parameters<ClickHouseClient['insert']>[0]) => this.run((c) => c.insert(p)),
      // Health checks never queue: a free client answers, and busy ones show the store is answering.
      ping: async () => (this.idle.length > 0 ? this.idle[this.idle.length - 1]!.ping() : { success: true as const }),
      close: () => this.close(),
    };
    return client as unknown as ClickHouseClient;
  }

  async close(): Promise<void> {
    for (const w of this.waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error('the store is closing'));
    }
    await Promise.allSettled(this.clients.map((c) => c.close()));
  }
}
