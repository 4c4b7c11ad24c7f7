/**
 * The background's state machine: settings, measurements → records → outbox, alarms and content
 * script registration. `index.ts` wires it to the browser's events.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { DEFAULT_TICKET_LIFETIME_MS, historyKey, type SiteProfile } from '@tlsrum/shared/classify';
import type {
  About,
  AboutReply,
  FieldPercentiles,
  Measurement,
  Message,
  NetworkHints,
  PageCounts,
  Replies,
  State,
} from '../messages';
import { api, VERSION } from '../lib/browser';
import { currentClientToken } from '../lib/client-token';
import { newConnectionsOf } from '@tlsrum/shared/classify';
import {
  AGENT_NAME,
  FETCH_TIMEOUT_MS,
  FLUSH_PERIOD_MINUTES,
  MAX_HISTORY_HOSTS,
  MAX_HISTORY_MS,
  MAX_RECENT,
  PAUSE_MS,
} from '../lib/constants';
import { detectEnvironment, type Environment } from '@tlsrum/shared/environment';
import { Outbox } from '../lib/outbox';
import { fieldFromCompare } from '../lib/field';
import { buildRecord } from '../lib/record';
import {
  isCollecting,
  isPaused,
  loadSettings,
  normaliseCollectorUrl,
  normaliseHost,
  saveSettings,
  type Settings,
} from '../lib/settings';
import { Mutex } from '@tlsrum/shared/mutex';
import { readKey, type KeyValueArea } from '../lib/storage';
import { migrateStorage } from '../lib/migrate';
import { t } from '../lib/i18n';
import { showState } from './action-icon';
import { syncContentScript } from './content-scripts';
import type { SecurityInfoCache } from './firefox-security';
import { RegisteredSites } from './sites';

type Counts = PageCounts & { measured: number };
type Recent = State['recent'];

export const ALARM_FLUSH = 'flush';
export const ALARM_RETRY = 'retry';
export const ALARM_RESUME = 'resume';

export class Controller {
  readonly outbox: Outbox;
  private readonly sites: RegisteredSites;
  private readonly mutex = new Mutex();
  /** Migrations run one at a time, apart from the settings mutex (settings() is called inside it). */
  private readonly migration = new Mutex();
  private env: Environment | null = null;

  constructor(
    private readonly area: KeyValueArea,
    private readonly securityInfo: SecurityInfoCache | null,
  ) {
    this.sites = new RegisteredSites(area);
    this.outbox = new Outbox({
      area,
      agent: { name: AGENT_NAME, version: VERSION },
      collectorUrl: async () => (await loadSettings(area)).collectorUrl,
      onRetryScheduled: (when) => void api.alarms.create(ALARM_RETRY, { when: Math.max(when, Date.now() + 1_000) }),
    });
  }

  /** Storage in the current version before anything reads it (an update may have left an older shape). */
  private ready(): Promise<number> {
    return this.migration.run(() => migrateStorage(this.area));
  }

  async settings(): Promise<Settings> {
    await this.ready();
    return loadSettings(this.area);
  }

  async collecting(): Promise<boolean> {
    return isCollecting(await this.settings());
  }

  /** Brings registrations and alarms in line with the settings (at start-up and after every change). */
  async sync(): Promise<void> {
    const s = await this.settings();
    await syncContentScript(s);
    await showState(s);
    if (s.optedIn) {
      if (!(await api.alarms.get(ALARM_FLUSH)))
        await api.alarms.create(ALARM_FLUSH, { periodInMinutes: FLUSH_PERIOD_MINUTES });
      if (isPaused(s)) await api.alarms.create(ALARM_RESUME, { when: s.pausedUntil });
    } else {
      await api.alarms.clearAll();
    }
  }

  async onAlarm(name: string): Promise<void> {
    await this.ready();
    if (name === ALARM_RESUME) await this.sync();
    if ((name === ALARM_FLUSH || name === ALARM_RETRY) && (await this.settings()).optedIn) await this.outbox.flush();
  }

  async handle(message: Message, sender: chrome.runtime.MessageSender): Promise<Replies[Message['type']]> {
    // Only our own extension pages may change settings or read the queue; content scripts only report.
    const fromPage = typeof sender.url === 'string' && sender.url.startsWith(api.runtime.getURL(''));
    await this.ready();
    if (message.type === 'measurements') {
      const { measurements, counts } = newConnectionsOf(message.entries, message.timeOrigin);
      return this.onMeasurements(measurements, counts, networkHints(), sender);
    }
    if (!fromPage) throw new Error(`message ${message.type} is not accepted from ${sender.url ?? 'unknown'}`);
    switch (message.type) {
      case 'get-state':
        return this.state();
      case 'set-opt-in':
        return this.setOptIn(message.optedIn);
      case 'get-about':
        return this.about(message.url);
      case 'pause':
        return this.update((s) => ({
          ...s,
          pausedUntil: Date.now() + Math.min(Math.max(message.minutes, 1) * 60_000, 24 * PAUSE_MS),
        }));
      case 'resume':
        return this.update((s) => ({ ...s, pausedUntil: 0 }));
      case 'set-excluded': {
        const host = normaliseHost(message.host);
        if (!host) throw new Error(`not a hostname: "${message.host}"`);
        await this.update((s) => ({
          ...s,
          excludedHosts: message.excluded
            ? [...new Set([...s.excludedHosts, host])].sort()
            : s.excludedHosts.filter((h) => h !== host),
        }));
        // Excluding a site also withdraws what was measured there and not sent yet.
        const dropped = message.excluded ? await this.outbox.dropSite(host) : 0;
        if (dropped)
          await this.mutex.run(async () =>
            this.area.set({
              recent: (await readKey<Recent>(this.area, 'recent', [])).filter(
                (r) => r.host !== host && r.record.site !== host,
              ),
            }),
          );
        return { state: await this.state(), dropped };
      }
      case 'set-collector': {
        const url = normaliseCollectorUrl(message.url);
        return this.update((s) => ({ ...s, collectorUrl: url }));
      }
      case 'flush': {
        const r = await this.outbox.flush({ force: true });
        return { sent: r.sent, ok: r.ok, error: r.error };
      }
      case 'get-field':
        return this.field(message.host);
    }
  }

  private async setOptIn(optedIn: boolean): Promise<Replies['set-opt-in']> {
    const state = await this.update((s) => ({
      ...s,
      optedIn,
      consent: optedIn ? { at: Date.now(), collectorUrl: s.collectorUrl } : null,
      pausedUntil: 0,
    }));
    let deleted = 0;
    if (optedIn) {
      void this.sites.get(state.settings.collectorUrl, { refresh: true }).catch(() => undefined);
    } else {
      // Consent withdrawn: nothing that waits is sent, and nothing measured is kept.
      deleted = await this.outbox.clear();
      await this.mutex.run(() =>
        this.area.set({ recent: [], history: {}, counts: { opaque: 0, reused: 0, skipped: 0, measured: 0 } }),
      );
    }
    return { state: await this.state(), deleted };
  }

  private async update(change: (s: Settings) => Settings): Promise<State> {
    await this.mutex.run(async () => saveSettings(this.area, change(await this.settings())));
    await this.sync();
    return this.state();
  }

  async state(): Promise<State> {
    const [settings, q, counts, recent] = await Promise.all([
      this.settings(),
      this.outbox.state(),
      readKey<Counts>(this.area, 'counts', { opaque: 0, reused: 0, skipped: 0, measured: 0 }),
      readKey<Recent>(this.area, 'recent', []),
    ]);
    return {
      settings,
      paused: isPaused(settings),
      queuePages: [...(q.pending?.pages ?? []), ...q.pages],
      queue: {
        records: [...(q.pending?.records ?? []), ...q.records],
        pending: q.pending
          ? { batchId: q.pending.batchId, records: q.pending.records.length, attempt: q.attempt }
          : null,
        dropped: q.dropped,
        rejected: q.rejected,
        expired: q.expired,
        sent: q.sent,
        nextAttemptAt: q.nextAttemptAt,
        lastError: q.lastError,
      },
      counts,
      recent,
    };
  }

  private environment(): Environment {
    const nav = navigator as Navigator & {
      userAgentData?: { brands?: { brand: string; version: string }[]; platform?: string };
    };
    this.env ??= detectEnvironment(nav.userAgent, nav.userAgentData);
    return this.env;
  }

  private async onMeasurements(
    measurements: Measurement[],
    counts: PageCounts,
    network: NetworkHints,
    sender: chrome.runtime.MessageSender,
  ): Promise<Replies['measurements']> {
    const settings = await this.settings();
    if (!isCollecting(settings)) return { accepted: 0 };
    const pageHost = pageHostOf(sender);
    if (pageHost && settings.excludedHosts.includes(pageHost)) return { accepted: 0 };
    const valid = [...measurements].sort((a, b) => a.startEpochMs - b.startEpochMs);
    const { sites, profiles } = await this.sites.withProfiles(settings.collectorUrl);
    const clientToken = await currentClientToken(this.area);
    const tabId = sender.tab?.id ?? -1;

    const records = await this.mutex.run(async () => {
      const history = await readKey<Record<string, number>>(this.area, 'history', {});
      const recent = await readKey<Recent>(this.area, 'recent', []);
      const total = await readKey<Counts>(this.area, 'counts', { opaque: 0, reused: 0, skipped: 0, measured: 0 });
      const out: HandshakeRecord[] = [];
      for (const m of valid) {
        // Sessions are partitioned by top-level site: only a handshake under the same page counts.
        const key = historyKey(pageHost, m.host);
        const priorEnd = history[key];
        const since = typeof priorEnd === 'number' && m.startEpochMs > priorEnd ? m.startEpochMs - priorEnd : null;
        const site = sites.has(m.host) ? m.host : null;
        const { record } = buildRecord(m, {
          env: this.environment(),
          site,
          profile: site ? (profiles.get(site) ?? null) : null,
          clientToken,
          network,
          observed: this.securityInfo?.find(tabId, m.host, m.responseEpochMs) ?? null,
          history: { msSincePriorHandshake: since, tracked: true },
        });
        history[key] = m.startEpochMs + (m.timing.connectEnd - m.timing.connectStart);
        out.push(record);
        recent.unshift({ host: m.host, record });
      }
      total.opaque += nonNegative(counts?.opaque);
      total.reused += nonNegative(counts?.reused);
      total.skipped += nonNegative(counts?.skipped);
      total.measured += out.length;
      await this.area.set({
        history: pruneHistory(history, profiles.values()),
        recent: recent.slice(0, MAX_RECENT),
        counts: total,
      });
      return out;
    });
    if (records.length === 0) return { accepted: 0 };
    const waiting = await this.outbox.enqueue(records, pageHost);
    if (waiting >= settings.flushAt) void this.outbox.flush().catch(() => undefined);
    return { accepted: records.length };
  }

  /**
   * Field percentiles per handshake class from the collector's query API (`GET /v1/compare`:
   * `{cells: [{key: {handshakeClass}, records, tls: {p50, p75, p95}} | {key, suppressed: true}]}`):
   * for the tab's site when it is registered and the collector lets anyone read it, else for every
   * site together. Never before opt-in: the popup must not contact the collector then.
   */
  private async field(host: string | null): Promise<FieldPercentiles> {
    const settings = await this.settings();
    const none = (note: string): FieldPercentiles => ({
      available: false,
      byClass: {},
      scope: 'all',
      site: null,
      note,
    });
    if (!settings.optedIn) return none('measuring is off');
    const base = `${settings.collectorUrl}/v1/compare?dimensions=handshakeClass&source=rum`;
    const registered = host ? (await this.sites.get(settings.collectorUrl)).has(host) : false;
    let siteRefused = false;
    if (registered && host) {
      const res = await this.fetchJson(`${base}&site=${encodeURIComponent(host)}`);
      if (res.ok) return fieldFromCompare(res.body, { scope: 'site', site: host });
      // The collector keeps one site's figures for that site's owner (read token): fall back to all sites, and say so.
      siteRefused = res.status === 401 || res.status === 403;
    }
    const res = await this.fetchJson(base);
    if (!res.ok) return { ...none(res.error), siteRefused };
    return { ...fieldFromCompare(res.body, { scope: 'all', site: null }), siteRefused };
  }

  /** `GET /v1/about` of the configured collector, or of `url` (the options page's "test connection"). */
  private async about(url?: string): Promise<AboutReply> {
    let base: string;
    try {
      base = url === undefined ? (await this.settings()).collectorUrl : normaliseCollectorUrl(url);
    } catch (err) {
      return { ok: false, url: url ?? '', error: (err as Error).message };
    }
    const res = await this.fetchJson(`${base}/v1/about`);
    if (!res.ok) return { ok: false, url: base, error: res.status === 404 ? t('aboutNotCollector', base) : res.error };
    const about = res.body as Partial<About> | null;
    if (!about || typeof about.retentionDays !== 'number')
      return { ok: false, url: base, error: t('aboutNotCollector', base) };
    return { ok: true, url: base, about: about as About };
  }

  private async fetchJson(
    url: string,
  ): Promise<{ ok: true; body: unknown } | { ok: false; status: number; error: string }> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
    const origin = url.slice(0, url.indexOf('/v1/'));
    try {
      const res = await fetch(url, { signal: controller.signal, credentials: 'omit' });
      if (!res.ok) return { ok: false, status: res.status, error: t('collectorAnsweredStatus', origin, res.status) };
      return { ok: true, body: await res.json() };
    } catch (err) {
      if (controller.signal.aborted)
        return { ok: false, status: 0, error: t('collectorTimeout', origin, FETCH_TIMEOUT_MS / 1000) };
      if (err instanceof SyntaxError) return { ok: false, status: 0, error: t('aboutNotCollector', origin) };
      return { ok: false, status: 0, error: t('collectorUnreachable', origin) };
    } finally {
      clearTimeout(timer);
    }
  }
}

const nonNegative = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

function pageHostOf(sender: chrome.runtime.MessageSender): string | null {
  const url = sender.tab?.url ?? sender.url;
  if (!url) return null;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Keeps the newest hosts, and only those within a ticket lifetime (the hint's only use). */
/**
 * Kept for as long as a ticket may be usable: the default lifetime, or the longest a registered site's
 * profile reports (at most MAX_HISTORY_MS).
 */
function pruneHistory(history: Record<string, number>, profiles: Iterable<SiteProfile>): Record<string, number> {
  let keepMs = DEFAULT_TICKET_LIFETIME_MS;
  for (const p of profiles) if (p.ticketLifetimeS !== null) keepMs = Math.max(keepMs, p.ticketLifetimeS * 1000);
  const cutoff = Date.now() - Math.min(keepMs, MAX_HISTORY_MS);
  const kept = Object.entries(history)
    .filter(([, t]) => t >= cutoff)
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_HISTORY_HOSTS);
  return Object.fromEntries(kept);
}

/**
 * The browser's estimate of the network (Network Information API; Chromium only, also in its service
 * worker). Read here when a page's entries arrive, not in the page: the estimate is the browser's own,
 * and its first use costs a page's main thread ≈ 0.3 ms.
 */
function networkHints(): NetworkHints {
  const c = (navigator as Navigator & { connection?: { effectiveType?: string; rtt?: number } }).connection;
  return { effectiveType: c?.effectiveType ?? null, rttHint: typeof c?.rtt === 'number' ? c.rtt : null };
}
