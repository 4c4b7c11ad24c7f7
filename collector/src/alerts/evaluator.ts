/**
 * Scheduled evaluation: for every registered site and window (last hour, last day), compare with the
 * same window one week earlier (same hour of the same weekday, so daily and weekly cycles cancel out),
 * run the checks, keep the latest verdicts, and notify on transitions (firing, resolved).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { CHECK_LABELS, PROBE_WINDOW, type CheckName } from '@tlsrum/shared/query';
import type { Alert } from '@tlsrum/shared/query/schemas';
import type { ProbeCheckResult } from '../probes/changes';
import { evaluateChecks } from './checks';
import type { Config } from '../platform/config';
import { queryWindowPair } from './window-query';
import type { Webhook } from './webhook';

export const WEEK_MS = 7 * 86_400_000;

export type AlertConfig = Config['alerts'];
export type AlertWindow = AlertConfig['windows'][number];
const WINDOW_MS: Record<AlertWindow, number> = { hour: 3_600_000, day: 86_400_000 };

/** A check's latest verdict for a site and window, as /v1/alerts answers it. */
export type AlertState = Alert;

export interface AlertEvent {
  event: 'firing' | 'resolved';
  alert: AlertState;
  summary: string;
}

export interface EvaluatorOptions {
  client: ClickHouseClient;
  /** Registered sites, read at every evaluation. */
  sites: () => string[];
  config: AlertConfig;
  /** Records of one client token counted per window and day at most (CLIENT_RECORDS_PER_CELL_DAY; 0: no cap). */
  clientCap: number;
  webhook?: Webhook | null;
  onEvent?: (e: AlertEvent) => void;
  onError?: (err: unknown) => void;
}

function describe(a: AlertState): string {
  if (a.window === PROBE_WINDOW) return a.summary ?? `${a.hostname ?? a.site}: ${a.check}`;
  const fmt = (v: number | null) =>
    v === null ? 'n/a' : a.check.endsWith('_drop') ? `${(v * 100).toFixed(1)} %` : `${v.toFixed(1)} ms`;
  return `${a.site}: ${CHECK_LABELS[a.check as CheckName]} over the last ${a.window} is ${fmt(a.current)}, was ${fmt(a.baseline)} a week ago (p = ${a.pValue?.toExponential(1) ?? 'n/a'})`;
}

export class AlertEvaluator {
  private readonly states = new Map<string, AlertState>();
  /** Probe check verdicts per site, hostname and check: replaced whenever that hostname's history is evaluated. */
  private readonly probeStates = new Map<string, AlertState>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<AlertState[]> | null = null;
  evaluations = 0;
  lastEvaluatedAt: number | null = null;

  constructor(private readonly o: EvaluatorOptions) {}

  private stopped = false;

  start(): void {
    if (this.o.config.intervalMs <= 0 || this.timer || this.stopped) return;
    const tick = () => {
      this.evaluate().catch((err) => this.o.onError?.(err));
    };
    tick();
    this.timer = setInterval(tick, this.o.config.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One evaluation of every site and window at `now`; overlapping calls share the one in progress. */
  evaluate(now = Date.now()): Promise<AlertState[]> {
    this.running ??= this.run(now).finally(() => (this.running = null));
    return this.running;
  }

  private async run(now: number): Promise<AlertState[]> {
    const sites = this.o.sites();
    const seen = new Set<string>();
    for (const site of sites) {
      for (const window of this.o.config.windows) {
        const w = WINDOW_MS[window];
        const range = { from: now - w, to: now, baselineFrom: now - w - WEEK_MS, baselineTo: now - WEEK_MS };
        const pair = await queryWindowPair(this.o.client, {
          site,
          current: { from: range.from, to: range.to },
          baseline: { from: range.baselineFrom, to: range.baselineTo },
          source: this.o.config.source,
          clientCap: this.o.clientCap,
        });
        for (const r of evaluateChecks(pair, this.o.config.thresholds)) {
          const key = `${site}\u0000${window}\u0000${r.check}`;
          seen.add(key);
          const prev = this.states.get(key);
          const firing = r.status === 'firing';
          const since = firing ? (prev?.status === 'firing' ? prev.since : now) : null;
          const state: AlertState = { ...r, site, window, since, evaluatedAt: now, range };
          this.states.set(key, state);
          if (firing && prev?.status !== 'firing') this.emit('firing', state);
          if (!firing && prev?.status === 'firing') this.emit('resolved', state);
        }
      }
    }
    // A site unregistered (or a window no longer configured) since the last run: its alerts resolve.
    for (const [key, s] of this.states) {
      if (seen.has(key)) continue;
      this.states.delete(key);
      if (s.status === 'firing') this.emit('resolved', { ...s, status: 'ok', since: null, evaluatedAt: now });
    }
    this.evaluations++;
    this.lastEvaluatedAt = now;
    return this.list();
  }

  /**
   * Verdicts of the probe change checks for one hostname of a site (after each probe cycle, from the stored
   * history): transitions notify through the same channels as the field-data checks.
   */
  applyProbeChecks(
    site: string,
    hostname: string,
    results: ProbeCheckResult[],
    probes: { count: number; from: number; to: number },
    now = Date.now(),
  ): void {
    for (const r of results) {
      const key = `${site}\u0000${hostname}\u0000${r.check}`;
      const prev = this.probeStates.get(key);
      const state: AlertState = {
        site,
        hostname,
        window: PROBE_WINDOW,
        check: r.check,
        status: r.status,
        summary: r.summary,
        current: null,
        baseline: null,
        change: null,
        pValue: null,
        samples: { current: probes.count, baseline: 0 },
        since: r.since,
        evaluatedAt: now,
        range: { from: probes.from, to: probes.to, baselineFrom: probes.from, baselineTo: probes.from },
      };
      this.probeStates.set(key, state);
      if (r.status === 'firing' && prev?.status !== 'firing') this.emit('firing', state);
      if (r.status !== 'firing' && prev?.status === 'firing') this.emit('resolved', state);
    }
  }

  /** Sites no longer registered: their probe alerts resolve. */
  dropProbeSites(keep: ReadonlySet<string>, now = Date.now()): void {
    for (const [key, s] of this.probeStates) {
      if (keep.has(s.site)) continue;
      this.probeStates.delete(key);
      if (s.status === 'firing') this.emit('resolved', { ...s, status: 'ok', since: null, evaluatedAt: now });
    }
  }

  private emit(event: AlertEvent['event'], alert: AlertState): void {
    const e: AlertEvent = {
      event,
      alert,
      summary: `${event === 'firing' ? 'FIRING' : 'resolved'} — ${describe(alert)}`,
    };
    this.o.onEvent?.(e);
    void this.o.webhook?.send({ source: 'tlsrum', ...e });
  }

  /** Latest verdicts, firing first; one site's only when `site` is given. */
  list(site: string | null = null): AlertState[] {
    const rank = { firing: 0, ok: 1, insufficient_data: 2 } as const;
    return [...this.states.values(), ...this.probeStates.values()]
      .filter((s) => site === null || s.site === site)
      .sort(
        (a, b) =>
          rank[a.status] - rank[b.status] ||
          a.site.localeCompare(b.site) ||
          a.window.localeCompare(b.window) ||
          a.check.localeCompare(b.check),
      );
  }
}
