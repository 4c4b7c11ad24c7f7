/**
 * storage.local carries a version (`storageVersion`). An update that changes the shape of what is
 * stored adds a step here; the background runs the steps before it reads anything, so records queued
 * by an older version are sent in the shape the collector accepts, and settings keep the user's choices.
 *
 * - v1 (no `storageVersion`): settings had `optedInAt`; the queue had no `pages`.
 * - v2: settings record `consent: {at, collectorUrl}`; the queue keeps, on this device, the site each
 *   waiting record was measured on (`pages`, for "exclude this site").
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { OUTBOX_KEY } from './outbox';
import { DEFAULT_SETTINGS, normaliseHost } from './settings';
import type { KeyValueArea } from './storage';

export const STORAGE_VERSION = 2;
export const VERSION_KEY = 'storageVersion';

type Stored = Record<string, unknown>;

interface V1Settings {
  optedIn?: boolean;
  optedInAt?: number | null;
  excludedHosts?: unknown;
  collectorUrl?: string;
  [k: string]: unknown;
}

interface V1Outbox {
  records?: HandshakeRecord[];
  pending?: { batchId: string; sentAt: number; records: HandshakeRecord[] } | null;
  [k: string]: unknown;
}

/** v1 → v2, on plain values (pure: unit-tested and run by migrateStorage). */
export function settingsV1toV2(v1: V1Settings): Stored {
  const { optedInAt, excludedHosts, ...rest } = v1;
  const hosts = Array.isArray(excludedHosts) ? excludedHosts.filter((h): h is string => typeof h === 'string') : [];
  return {
    ...rest,
    consent:
      v1.optedIn && typeof optedInAt === 'number'
        ? { at: optedInAt, collectorUrl: v1.collectorUrl ?? DEFAULT_SETTINGS.collectorUrl }
        : null,
    // v1 stored what was typed; v2 keeps valid, lower-case, unique hostnames only.
    excludedHosts: [...new Set(hosts.map(normaliseHost).filter((h): h is string => h !== null))].sort(),
  };
}

export function outboxV1toV2(v1: V1Outbox): Stored {
  // The page a v1 record was measured on is unknown; its registered site (if any) stands in for it.
  const pagesOf = (records: HandshakeRecord[]) => records.map((r) => r.site ?? null);
  const records = v1.records ?? [];
  return {
    ...v1,
    records,
    pages: pagesOf(records),
    pending: v1.pending ? { ...v1.pending, pages: pagesOf(v1.pending.records) } : null,
  };
}

/** Brings storage to STORAGE_VERSION. Idempotent; a fresh install is written as the current version. */
export async function migrateStorage(area: KeyValueArea): Promise<number> {
  const version = (await area.get(VERSION_KEY))[VERSION_KEY];
  let v = typeof version === 'number' ? version : 1;
  if (v > STORAGE_VERSION)
    throw new Error(
      `storage version ${v} is newer than this extension (${STORAGE_VERSION}): a downgrade is not supported`,
    );
  if (v === 1) {
    const { settings } = await area.get('settings');
    const { [OUTBOX_KEY]: outbox } = await area.get(OUTBOX_KEY);
    const changes: Stored = { [VERSION_KEY]: 2 };
    if (settings && typeof settings === 'object') changes.settings = settingsV1toV2(settings as V1Settings);
    if (outbox && typeof outbox === 'object') changes[OUTBOX_KEY] = outboxV1toV2(outbox as V1Outbox);
    // One write: a worker stopped half-way leaves v1 intact and migrates again.
    await area.set(changes);
    v = 2;
  }
  return v;
}
