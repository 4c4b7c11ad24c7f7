/**
 * Configuration from environment variables, validated once at start. A bad value stops the process
 * with a message naming the variable, never a silent default.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AlertConfigError, loadAlertConfig, type AlertConfig } from './alerts/config';

export interface Config {
  /** Regression alerts (ALERT_* variables, alerts/config.ts). */
  alerts: AlertConfig;
  host: string;
  port: number;
  dataDir: string;
  /** `cluster`: the ClickHouse cluster name (CLICKHOUSE_CLUSTER); tables then live ON CLUSTER (docs/cluster.md). */
  clickhouse: { url: string; username: string; password: string; database: string; cluster: string | null } | null;
  retentionDays: number;
  flushIntervalMs: number;
  flushMaxRows: number;
  /** Rows held in memory waiting for the store before ingest answers 503. */
  maxBufferedRows: number;
  /** Request body as sent (compressed or not), bytes. */
  bodyLimitBytes: number;
  /** Request body after gunzip, bytes. */
  inflatedLimitBytes: number;
  geoipDb: string | null;
  geoipOverrides: string | null;
  adminToken: string | null;
  /** Cells with fewer distinct clients than this are suppressed in query results. */
  minClientsPerCell: number;
  trustProxy: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  // --- hardening (issue 8) ---
  /** Write-ahead spool for accepted batches (segment files), default DATA_DIR/spool. */
  spoolDir: string;
  /** Bytes of spooled batches waiting for the store before ingest answers 503. */
  spoolMaxBytes: number;
  /** Batch ids remembered for the duplicate check (also journaled to survive restarts). */
  recentBatches: number;
  /** How long a graceful shutdown keeps trying to move the spool into the store. */
  shutdownDrainMs: number;
  /** Requests per minute per client address on the ingest route; 0 = no limit. */
  rateLimitPerMinute: number;
  /** Event-loop delay above which the collector answers 503; 0 = not checked. */
  maxEventLoopDelayMs: number;
  /** V8 heap use above which the collector answers 503; 0 = not checked. */
  maxHeapUsedBytes: number;
  /** Origins allowed cross-origin (CORS): exact origins, or `moz-extension://*` / `chrome-extension://*`. */
  corsOrigins: string[];
  /** A request (headers and body) must arrive whole within this time: slow-loris bodies are cut off. */
  requestTimeoutMs: number;
  /** Who runs this collector, for `GET /v1/about` (shown to users before they consent). */
  about: { operator: string | null; contact: string | null; privacyPolicyUrl: string | null };
  // --- dashboard and query API (issue 7) ---
  /** The built dashboard served at `/` (default: dashboard/dist of this repository). */
  dashboardDir: string;
}

const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

export const DEFAULT_MIN_CLIENTS_PER_CELL = 20;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function str(env: Env, name: string): string | null {
  const v = env[name]?.trim();
  return v ? v : null;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const dataDir = str(env, 'DATA_DIR') ?? './data';
  const url = str(env, 'CLICKHOUSE_URL');
  if (url) {
    try {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      throw new ConfigError(`CLICKHOUSE_URL must be an http(s) URL, got "${url}"`);
    }
  }
  const database = str(env, 'CLICKHOUSE_DATABASE') ?? 'tlsrum';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(database)) {
    throw new ConfigError(`CLICKHOUSE_DATABASE must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got "${database}"`);
  }
  const cluster = str(env, 'CLICKHOUSE_CLUSTER');
  if (cluster && !url) throw new ConfigError('CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL (a cluster is a set of servers, not the embedded store)');
  if (cluster && !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(cluster)) {
    throw new ConfigError(`CLICKHOUSE_CLUSTER must be an identifier ([A-Za-z_][A-Za-z0-9_]*), got "${cluster}"`);
  }
  const logLevel = (str(env, 'LOG_LEVEL') ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const adminToken = str(env, 'ADMIN_TOKEN');
  if (adminToken && adminToken.length < 16) throw new ConfigError('ADMIN_TOKEN must be at least 16 characters');
  const trust = str(env, 'TRUST_PROXY') ?? 'false';
  if (trust !== 'true' && trust !== 'false') throw new ConfigError(`TRUST_PROXY must be true or false, got "${trust}"`);
  const abs = (p: string | null) => (p === null ? null : isAbsolute(p) ? p : resolve(cwd, p));
  const bodyLimitBytes = int(env, 'BODY_LIMIT_BYTES', 256 * 1024, 1024, 16 * 1024 * 1024);
  const inflatedLimitBytes = int(env, 'INFLATED_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024);
  if (inflatedLimitBytes < bodyLimitBytes) throw new ConfigError('INFLATED_LIMIT_BYTES must be at least BODY_LIMIT_BYTES');

  const minClientsPerCell = int(env, 'MIN_CLIENTS_PER_CELL', DEFAULT_MIN_CLIENTS_PER_CELL, 1, 1_000_000);
  let alerts: AlertConfig;
  try {
    alerts = loadAlertConfig(env, minClientsPerCell);
  } catch (err) {
    if (err instanceof AlertConfigError) throw new ConfigError(err.message);
    throw err;
  }

  return {
    alerts,
    host,
    port: int(env, 'PORT', 8787, 0, 65535),
    dataDir: abs(dataDir)!,
    clickhouse: url
      ? { url, username: str(env, 'CLICKHOUSE_USER') ?? 'default', password: env.CLICKHOUSE_PASSWORD ?? '', database, cluster }
      : null,
    retentionDays: int(env, 'RETENTION_DAYS', 395, 1, 36500),
    flushIntervalMs: int(env, 'FLUSH_INTERVAL_MS', 1000, 10, 60_000),
    flushMaxRows: int(env, 'FLUSH_MAX_ROWS', 10_000, 1, 100_000),
    maxBufferedRows: int(env, 'MAX_BUFFERED_ROWS', 500_000, 1, 10_000_000),
    bodyLimitBytes,
    inflatedLimitBytes,
    geoipDb: abs(str(env, 'GEOIP_DB')),
    geoipOverrides: abs(str(env, 'GEOIP_OVERRIDES')),
    adminToken,
    minClientsPerCell,
    trustProxy: trust === 'true',
    logLevel,
    spoolDir: abs(str(env, 'SPOOL_DIR')) ?? join(abs(dataDir)!, 'spool'),
    spoolMaxBytes: int(env, 'SPOOL_MAX_BYTES', 512 * 1024 * 1024, 64 * 1024, 1024 ** 4),
    recentBatches: int(env, 'RECENT_BATCHES', 200_000, 1, 10_000_000),
    shutdownDrainMs: int(env, 'SHUTDOWN_DRAIN_MS', 10_000, 0, 3_600_000),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 100_000_000),
    maxEventLoopDelayMs: int(env, 'MAX_EVENT_LOOP_DELAY_MS', 1000, 0, 600_000),
    maxHeapUsedBytes: int(env, 'MAX_HEAP_USED_BYTES', 0, 0, 1024 ** 4),
    corsOrigins: corsOrigins(env),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 500, 600_000),
    dashboardDir: abs(str(env, 'DASHBOARD_DIR')) ?? DEFAULT_DASHBOARD_DIR,
    about: aboutOf(env),
  };
}

/** OPERATOR_NAME (plain text), OPERATOR_CONTACT (an e-mail address or an http(s) URL), PRIVACY_POLICY_URL. */
function aboutOf(env: Env): Config['about'] {
  const operator = str(env, 'OPERATOR_NAME');
  if (operator && (operator.length > 200 || [...operator].some((c) => c < ' ' || c === '<' || c === '>'))) {
    throw new ConfigError('OPERATOR_NAME must be at most 200 characters of plain text (no control characters, < or >)');
  }
  const contact = str(env, 'OPERATOR_CONTACT');
  if (contact && !/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(contact) && !isHttpUrl(contact)) {
    throw new ConfigError(`OPERATOR_CONTACT must be an e-mail address or an http(s) URL, got "${contact}"`);
  }
  const privacyPolicyUrl = str(env, 'PRIVACY_POLICY_URL');
  if (privacyPolicyUrl && !isHttpUrl(privacyPolicyUrl)) throw new ConfigError(`PRIVACY_POLICY_URL must be an http(s) URL, got "${privacyPolicyUrl}"`);
  return { operator, contact, privacyPolicyUrl };
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'https:' || u.protocol === 'http:') && s.length <= 500;
  } catch {
    return false;
  }
}

/**
 * CORS_ORIGINS: comma-separated. `chrome-extension://<32 letters a-p>` for a Chromium extension id,
 * `moz-extension://*` for Firefox (its add-on UUID is random per install, so it cannot be listed),
 * or an http(s) origin such as a dashboard served elsewhere.
 */
function corsOrigins(env: Env): string[] {
  const raw = str(env, 'CORS_ORIGINS');
  if (!raw) return [];
  return raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => {
      const ok =
        /^chrome-extension:\/\/(?:[a-p]{32}|\*)$/.test(o) ||
        /^moz-extension:\/\/(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\*)$/.test(o) ||
        /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/.test(o) ||
        /^https?:\/\/\[[0-9a-f:]+\](?::\d{1,5})?$/.test(o);
      if (!ok) {
        throw new ConfigError(
          `CORS_ORIGINS: "${o}" is not an origin (chrome-extension://ID, moz-extension://UUID or moz-extension://*, http(s)://host[:port])`,
        );
      }
      return o;
    });
}
