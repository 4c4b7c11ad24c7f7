/**
 * Property-based tests of ingest (fast-check, through app.inject on a real store): any valid batch is
 * stored whole, with unregistered sites nulled; any other JSON is refused with a 4xx, never a 5xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchArb, hostnameArb } from '@tlsrum/shared/test/arbitraries';
import { postBatch, removeDir, startApp, storedRows, type TestApp } from '../support/helpers';

let t: TestApp;
const REGISTERED = 'registered.example.com';
beforeAll(async () => {
  t = await startApp({ FLUSH_INTERVAL_MS: '60000', RATE_LIMIT_PER_MINUTE: '0' });
  await t.app.sites.register(REGISTERED);
});
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

describe('ingest properties', () => {
  it('any valid batch is acknowledged and stored whole; a site is kept only if registered', async () => {
    const withSites = batchArb({ maxRecords: 30 }).chain((b) =>
      fc
        .array(
          fc.oneof(fc.constant(REGISTERED), fc.constant(REGISTERED.toUpperCase()), hostnameArb, fc.constant(null)),
          {
            minLength: b.records.length,
            maxLength: b.records.length,
          },
        )
        .map((sites) => ({ ...b, records: b.records.map((r, i) => ({ ...r, site: sites[i]! })) })),
    );
    const seenIds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(withSites, fc.boolean(), async (batch, gzip) => {
        const res = await postBatch(t.app, batch, { gzip });
        expect(res.statusCode).toBe(202);
        expect(res.json()).toEqual({ accepted: batch.records.length });
        // The batch's first token keeps its id; any other token's rows get ids of their own (one token per
        // stored batch id): the new rows are those whose id was not stored before.
        const rows = await storedRows(
          t.app,
          seenIds.size ? `toString(batchId) NOT IN (${[...seenIds].map((id) => `'${id}'`).join(',')})` : '1',
        );
        for (const r of rows) seenIds.add(String(r.batchId));
        expect(rows).toHaveLength(batch.records.length);
        // Split only across UTC days (ingest/pipeline.ts): then the batch's id keeps its first token's rows.
        const days = new Set(batch.records.map((r) => Math.floor(r.ts / 86_400_000)));
        const ofFirst = batch.records.filter((r) => days.size === 1 || r.clientToken === batch.records[0]!.clientToken);
        expect(rows.filter((r) => r.batchId === batch.batchId.toLowerCase())).toHaveLength(ofFirst.length);
        const want = batch.records.map((r) => (r.site?.toLowerCase() === REGISTERED ? REGISTERED : '')).sort();
        expect(rows.map((r) => r.site).sort()).toEqual(want);
      }),
      { numRuns: 40 },
    );
  });

  it('any other JSON, or a valid batch with one field replaced by anything, gets 400, never 5xx or 202 with a stored surprise', async () => {
    const mutated = fc
      .tuple(
        batchArb({ maxRecords: 3 }),
        fc.constantFrom(
          'v',
          'batchId',
          'sentAt',
          'agent',
          'records',
          'ts',
          'tls',
          'site',
          'protocol',
          'clientToken',
          '__proto__',
          'constructor',
        ),
        fc.jsonValue(),
      )
      .map(([b, field, value]) => {
        const obj = structuredClone(b) as unknown as Record<string, unknown> & { records: Record<string, unknown>[] };
        const target = ['v', 'batchId', 'sentAt', 'agent', 'records', '__proto__', 'constructor'].includes(field)
          ? obj
          : obj.records[0]!;
        // An own property, so that "__proto__" is a real key in the JSON text, not a prototype change here.
        Object.defineProperty(target, field, { value, enumerable: true, writable: true, configurable: true });
        return JSON.stringify(obj);
      });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue().map((v) => JSON.stringify(v)),
          mutated,
          fc.string(),
        ),
        async (body) => {
          const res = await postBatch(t.app, body);
          expect(res.statusCode).toBeLessThan(500);
          expect([202, 400, 413]).toContain(res.statusCode);
          expect(res.json()).toHaveProperty(res.statusCode === 202 ? 'accepted' : 'message');
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
