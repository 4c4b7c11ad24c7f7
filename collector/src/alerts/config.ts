/**
 * Alert settings from the environment (read by loadConfig). Every knob has a default meant to stay
 * quiet on noise: alpha 1e-4 per one-sided test, at least 200 records per window, and an effect size.
 */
import type { Thresholds } from './checks';

export type AlertWindow = 'hour' | 'day';
export const WINDOW_MS: Record<AlertWindow, number> = { hour: 3_600_000, day: 86_400_000 };

export interface AlertConfig {
  /** Evaluation period, ms; 0 turns scheduled evaluation off. */
  intervalMs: number;
  windows: AlertWindow[];
  thresholds: Thresholds;
  /** Only records of this source are compared (synthetic runs come in bursts a week apart). */
  source: 'rum' | 'synthetic' | null;
  webhookUrl: string | null;
  /** Attempts after the first failure. */
  webhookRetries: number;
  webhookTimeoutMs: number;
}

type Env = Record<string, string | undefined>;

export class AlertConfigError extends Error {
  override name = 'ConfigError';
}

function number(env: Env, name: string, fallback: number, min: number, max: number, integer = false): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?(e-?\d+)?$/i.test(raw) || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new AlertConfigError(`${name} must be a ${integer ? 'whole ' : ''}number, got "${raw}"`);
  }
  if (n < min || n > max) throw new AlertConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

export function loadAlertConfig(env: Env, minClientsPerCell: number): AlertConfig {
  const windows = (env.ALERT_WINDOWS?.trim() || 'hour,day').split(',').map((w) => w.trim());
  for (const w of windows) if (w !== 'hour' && w !== 'day') throw new AlertConfigError(`ALERT_WINDOWS must list hour and/or day, got "${w}"`);
  const source = env.ALERT_SOURCE?.trim() || 'rum';
  if (source !== 'rum' && source !== 'synthetic' && source !== 'any') throw new AlertConfigError(`ALERT_SOURCE must be rum, synthetic or any, got "${source}"`);
  const webhookUrl = env.ALERT_WEBHOOK_URL?.trim() || null;
  if (webhookUrl) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(webhookUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw new AlertConfigError(`ALERT_WEBHOOK_URL must be an http(s) URL, got "${webhookUrl}"`);
  }
  return {
    intervalMs: number(env, 'ALERT_INTERVAL_MS', 300_000, 0, 86_400_000, true),
    windows: [...new Set(windows)] as AlertWindow[],
    thresholds: {
      alpha: number(env, 'ALERT_ALPHA', 1e-4, 1e-12, 0.5),
      minSamples: number(env, 'ALERT_MIN_SAMPLES', 200, 1, 1e9, true),
      // Never below the small-cell threshold: a check's figures would show a cell the query API suppresses.
      minClients: number(env, 'ALERT_MIN_CLIENTS', minClientsPerCell, minClientsPerCell, 1e9, true),
      shareDrop: number(env, 'ALERT_SHARE_DROP', 0.1, 0, 1),
      p75Rise: number(env, 'ALERT_P75_RISE', 0.2, 0, 100),
    },
    source: source === 'any' ? null : source,
    webhookUrl,
    webhookRetries: number(env, 'ALERT_WEBHOOK_RETRIES', 5, 0, 20, true),
    webhookTimeoutMs: number(env, 'ALERT_WEBHOOK_TIMEOUT_MS', 5000, 100, 60_000, true),
  };
}
