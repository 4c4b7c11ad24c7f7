/**
 * Alert notifications as a JSON POST, retried with exponential backoff (base, 2×base, 4×base, …) on a
 * network error, a timeout or a non-2xx answer. Deliveries run one after the other in the background,
 * so a slow receiver never holds up an evaluation, and their order is the order of the events.
 */
export interface WebhookOptions {
  url: string;
  retries: number;
  timeoutMs: number;
  /** First retry delay, ms (tests shorten it). */
  backoffMs?: number;
  onDelivered?: (attempts: number) => void;
  onFailed?: (err: Error, attempts: number) => void;
}

export class Webhook {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private wake: (() => void) | null = null;
  delivered = 0;
  failed = 0;

  constructor(private readonly o: WebhookOptions) {}

  /** Queues one delivery; the returned promise settles when it is delivered or given up (never rejects). */
  send(payload: unknown): Promise<void> {
    const body = JSON.stringify(payload);
    this.queue = this.queue.then(() => this.deliver(body));
    return this.queue;
  }

  private async deliver(body: string): Promise<void> {
    const base = this.o.backoffMs ?? 1000;
    let lastErr: Error = new Error('not attempted');
    for (let attempt = 0; attempt <= this.o.retries && !this.closed; attempt++) {
      if (attempt > 0) {
        await new Promise<void>((r) => {
          const timer = setTimeout(r, base * 2 ** (attempt - 1));
          this.wake = () => {
            clearTimeout(timer);
            r();
          };
        });
        this.wake = null;
        if (this.closed) break;
      }
      try {
        const res = await fetch(this.o.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'tlsrum-alerts' },
          body,
          // The configured URL only: a redirect (to an internal address, say) is a failed delivery.
          redirect: 'error',
          signal: AbortSignal.timeout(this.o.timeoutMs),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) {
          this.delivered++;
          this.o.onDelivered?.(attempt + 1);
          return;
        }
        lastErr = new Error(`webhook answered ${res.status}`);
      } catch (err) {
        lastErr = err as Error;
      }
    }
    this.failed++;
    this.o.onFailed?.(lastErr, this.o.retries + 1);
  }

  /** Resolves once every queued delivery is delivered or given up. */
  async idle(): Promise<void> {
    await this.queue;
  }

  /** Shutdown: stops retrying (queued deliveries get no further attempts) and waits for the one in flight. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.queue;
  }
}
