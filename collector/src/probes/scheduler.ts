/**
 * Probes every registered site (and every extra hostname registered for one) every `intervalMs`, off the
 * ingest path: its own timer, its own bounded pool of probes, a timeout per connection phase, results
 * appended to `site_probes` through the query client (the ingest client never waits for a probe).
 *
 * Each cycle starts after a random delay of up to `jitter` × interval (several collectors started together
 * do not probe a site at the same instant), and the targets of one cycle are started one after another, at
 * most `concurrency` at a time. A cycle still running when the next is due is not doubled: the next waits.
 * Only registered hostnames are probed: the target list comes from the site registry and `probe_targets`;
 * every probe goes through the connection guard (`policy`: public addresses only, unless allow-listed).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { ProbeOptions, ProbeOutcome } from '@tlsrum/probe';
import type { ConnectPolicy } from '../platform/net/public-connect';
import { probePublic } from './public-target';
import { insertProbes, type ProbeTarget } from './store';

export interface ProbeSchedulerConfig {
  /** ms between cycles; 0 = off. */
  intervalMs: number;
  /** Probes running at once. */
  concurrency: number;
  /** Per connection phase of a probe, ms. */
  timeoutMs: number;
  /** Cold runs per probe. */
  runs: number;
  /** Fraction of the interval a cycle's start is randomly delayed by (0–1). */
  jitter: number;
}

export interface ProbeSchedulerOptions {
  client: ClickHouseClient;
  config: ProbeSchedulerConfig;
  /** Registered sites and extra hostnames, read at every cycle. */
  targets: () => Promise<ProbeTarget[]> | ProbeTarget[];
  /** The URL probed for a hostname (default `https://HOST/`); tests map lab hosts to their ports. */
  urlOf?: (hostname: string) => string;
  /** Extra probe options (a private CA). */
  probeOptions?: Partial<Pick<ProbeOptions, 'ca' | 'insecure'>>;
  /** Where probes may connect: public addresses, and the hosts the operator allow-listed. */
  policy: ConnectPolicy;
  /** After each cycle's rows are stored (the alert engine evaluates the probe checks then). */
  onCycle?: (probed: ProbedTarget[]) => void | Promise<void>;
  onError?: (err: unknown) => void;
  random?: () => number;
}

export interface ProbedTarget extends ProbeTarget {
  at: number;
  outcome: ProbeOutcome;
}

export class ProbeScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<ProbedTarget[]> | null = null;
  private stopped = false;
  cycles = 0;
  probes = 0;
  failures = 0;
  lastCycleAt: number | null = null;

  constructor(private readonly o: ProbeSchedulerOptions) {}

  get enabled(): boolean {
    return this.o.config.intervalMs > 0;
  }

  start(): void {
    if (!this.enabled || this.timer || this.stopped) return;
    this.schedule();
  }

  /** Next cycle: the first within min(jitter × interval, 1 min) of start, then every interval ± jitter/2. */
  private schedule(): void {
    if (this.stopped) return;
    const { intervalMs, jitter } = this.o.config;
    const r = (this.o.random ?? Math.random)();
    const wait = this.cycles === 0 ? r * Math.min(intervalMs * jitter, 60_000) : intervalMs * (1 + jitter * (r - 0.5));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runCycle()
        .catch((err) => this.o.onError?.(err))
        .finally(() => this.schedule());
    }, wait);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One cycle now; a call while one runs shares it. */
  runCycle(): Promise<ProbedTarget[]> {
    this.running ??= this.cycle().finally(() => (this.running = null));
    return this.running;
  }

  private async cycle(): Promise<ProbedTarget[]> {
    const targets = await this.o.targets();
    const { concurrency, timeoutMs, runs } = this.o.config;
    const options: ProbeOptions = { runs, timeoutMs, ca: [], resolve: {}, insecure: false, ...this.o.probeOptions };
    const urlOf = this.o.urlOf ?? ((h: string) => `https://${h}/`);
    const done: ProbedTarget[] = [];
    let next = 0;
    const worker = async () => {
      while (!this.stopped && next < targets.length) {
        const t = targets[next++]!;
        const at = Date.now();
        try {
          const outcome = await probePublic(urlOf(t.hostname), options, this.o.policy);
          done.push({ ...t, at, outcome });
          if (outcome.result.errors.length) this.failures++;
        } catch (err) {
          // probe() turns server failures into `errors`; a throw here is a bug, reported, not fatal.
          this.failures++;
          this.o.onError?.(err);
        }
        this.probes++;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, targets.length)) }, worker));
    done.sort((a, b) => a.at - b.at);
    await insertProbes(
      this.o.client,
      done.map(({ site, hostname, at, outcome }) => ({ site, hostname, at, outcome })),
    );
    this.cycles++;
    this.lastCycleAt = Date.now();
    await this.o.onCycle?.(done);
    return done;
  }
}
