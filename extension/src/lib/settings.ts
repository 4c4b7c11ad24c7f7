/** The user's choices, kept in storage.local under `settings`. Nothing is measured until `optedIn`. */
import { isValidHostname } from '@tlsrum/shared/constants';
import { DEFAULT_COLLECTOR_URL, DEFAULT_FLUSH_AT } from './constants';
import { readKey, type KeyValueArea } from './storage';

export interface Settings {
  optedIn: boolean;
  /** What the user agreed to: when, and to which collector (shown in the popup and options). */
  consent: { at: number; collectorUrl: string } | null;
  /** Measurement stops until this time (epoch ms); 0 = not paused. */
  pausedUntil: number;
  /** Page hostnames the user excluded: no content script runs there. */
  excludedHosts: string[];
  collectorUrl: string;
  /** Send as soon as this many records wait. */
  flushAt: number;
}

export const DEFAULT_SETTINGS: Settings = {
  optedIn: false,
  consent: null,
  pausedUntil: 0,
  excludedHosts: [],
  collectorUrl: DEFAULT_COLLECTOR_URL,
  flushAt: DEFAULT_FLUSH_AT,
};

export async function loadSettings(area: KeyValueArea): Promise<Settings> {
  return { ...DEFAULT_SETTINGS, ...(await readKey<Partial<Settings>>(area, 'settings', {})) };
}

export async function saveSettings(area: KeyValueArea, settings: Settings): Promise<void> {
  await area.set({ settings });
}

export const isPaused = (s: Settings, now = Date.now()) => s.pausedUntil > now;
export const isCollecting = (s: Settings, now = Date.now()) => s.optedIn && !isPaused(s, now);

/**
 * A collector base URL: http(s), no credentials, query or fragment; trailing slash removed.
 * Throws with a message the options page shows.
 */
export function normaliseCollectorUrl(input: string): string {
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    throw new Error(`not a URL: "${input}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error('the collector URL must start with http:// or https://');
  if (u.username || u.password) throw new Error('the collector URL must not contain credentials');
  if (u.search || u.hash) throw new Error('the collector URL must not contain a query or fragment');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** Lower-cases and validates a hostname typed or taken from a tab; null when it is not one. */
export function normaliseHost(input: string): string | null {
  const host = input.trim().toLowerCase().replace(/\.$/, '');
  return isValidHostname(host) ? host : null;
}
