import { describe, expect, it } from 'vitest';
import { migrateStorage, STORAGE_VERSION, VERSION_KEY } from '../../src/lib/migrate';
import { Outbox, OUTBOX_KEY } from '../../src/lib/outbox';
import { loadSettings } from '../../src/lib/settings';
import { MemoryArea } from '../../src/lib/storage';
import { record } from '../support/records';

/** What version 0.1.0 of the extension (storage v1, no version key) left in storage.local. */
function v1Area(): MemoryArea {
  const area = new MemoryArea();
  area.data.set('settings', {
    optedIn: true,
    optedInAt: 1_763_900_000_000,
    pausedUntil: 0,
    excludedHosts: ['Example.COM', 'bad host', 'example.com', 'news.example'],
    collectorUrl: 'https://collector.example',
    flushAt: 50,
  });
  area.data.set(OUTBOX_KEY, {
    records: [record({ site: 'shop.example' }), record({ site: null })],
    pending: {
      batchId: '00000000-0000-4000-8000-000000000001',
      sentAt: 1,
      records: [record({ site: 'news.example' })],
    },
    attempt: 1,
    nextAttemptAt: 0,
    dropped: 0,
    rejected: 0,
    expired: 0,
    sent: 7,
    lastError: 'collector answered 503',
  });
  return area;
}

describe('storage migration', () => {
  it('brings stored v1 settings and queue to v2 without losing a choice or a record', async () => {
    const area = v1Area();
    expect(await migrateStorage(area)).toBe(STORAGE_VERSION);
    expect(area.data.get(VERSION_KEY)).toBe(2);
    const s = await loadSettings(area);
    expect(s).toMatchObject({
      optedIn: true,
      consent: { at: 1_763_900_000_000, collectorUrl: 'https://collector.example' },
      collectorUrl: 'https://collector.example',
    });
    expect(s).not.toHaveProperty('optedInAt');
    expect(s.excludedHosts).toEqual(['example.com', 'news.example']);
    const q = area.data.get(OUTBOX_KEY) as {
      records: unknown[];
      pages: unknown[];
      pending: { pages: unknown[]; batchId: string };
      sent: number;
    };
    expect(q.records).toHaveLength(2);
    expect(q.pages).toEqual(['shop.example', null]);
    expect(q.pending).toMatchObject({ batchId: '00000000-0000-4000-8000-000000000001', pages: ['news.example'] });
    expect(q.sent).toBe(7);
  });

  it('is idempotent, and a migrated queue still drops an excluded site and sends the rest unchanged', async () => {
    const area = v1Area();
    await migrateStorage(area);
    const once = structuredClone([...area.data.entries()]);
    await migrateStorage(area);
    expect([...area.data.entries()]).toEqual(once);
    const outbox = new Outbox({
      area,
      agent: { name: 'tlsrum-extension', version: '0' },
      collectorUrl: async () => 'http://c.test',
    });
    expect(await outbox.dropSite('news.example')).toBe(1);
    const s = await outbox.state();
    expect(s.pending).toBeNull();
    expect(s.records.map((r) => r.site)).toEqual(['shop.example', null]);
  });

  it('writes a fresh install as the current version, and refuses storage from a newer one', async () => {
    const area = new MemoryArea();
    await migrateStorage(area);
    expect(area.data.get(VERSION_KEY)).toBe(STORAGE_VERSION);
    area.data.set(VERSION_KEY, STORAGE_VERSION + 1);
    await expect(migrateStorage(area)).rejects.toThrow(/newer/);
  });
});
