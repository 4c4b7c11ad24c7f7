/**
 * Work the collector does on its own once the store is ready, then at intervals (the monthly dataset, the
 * merge of the closed months): a first run `firstMs` after the store is ready, each next one
 * `everyMs` after the previous one ended, none once the collector closes. Closing waits for the run under
 * way, or for what `settled` returns (a job that can also be started another way). A run handles its own
 * errors (logs them and tries again at the next interval).
 */
import type { FastifyInstance } from 'fastify';

export interface RepeatedJob {
  firstMs: number;
  everyMs: number;
  run: () => Promise<unknown>;
  settled?: () => Promise<unknown> | null;
}

export function repeatAfterReady(app: FastifyInstance, job: RepeatedJob): void {
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  let running: Promise<unknown> | null = null;
  const tick = (delay: number) => {
    if (closed) return;
    timer = setTimeout(() => {
      running = job.run().finally(() => {
        running = null;
        tick(job.everyMs);
      });
    }, delay);
    timer.unref();
  };
  void app.storeStatus.whenReady.then(() => tick(job.firstMs));
  app.addHook('onClose', async () => {
    closed = true;
    if (timer) clearTimeout(timer);
    await (job.settled ? job.settled() : running);
  });
}
