/**
 * Every bound in the schema, walked from the schema itself so a new field cannot go untested: for each
 * property, values just inside its bounds are stored and values just outside are refused with a 400
 * naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HandshakeBatch, HandshakeRecord, MAX_PHASE_MS } from '@tlsrum/shared';
import { makeBatch, makeRecords, postBatch, removeDir, startApp, type TestApp } from '../support/helpers';

interface Case {
  path: string;
  value: unknown;
}

type Schema = {
  type?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: unknown[];
  anyOf?: Schema[];
  const?: unknown;
  properties?: Record<string, Schema>;
};

/** Values at and beyond the bounds of one (possibly nullable) property schema. */
function probes(schema: Schema): { inside: unknown[]; outside: unknown[] } {
  const variants = schema.anyOf ?? [schema];
  const inside: unknown[] = [];
  const outside: unknown[] = [];
  for (const s of variants) {
    if (s.type === 'null') inside.push(null);
    if (s.enum) {
      inside.push(...s.enum);
      outside.push('not-one-of-them');
    }
    if (s.const !== undefined) {
      inside.push(s.const);
      outside.push(typeof s.const === 'number' ? s.const + 1 : `${String(s.const)}x`);
    }
    if (s.type === 'integer' || s.type === 'number') {
      const step = s.type === 'integer' ? 1 : 0.1;
      if (s.minimum !== undefined) {
        inside.push(s.minimum);
        outside.push(s.minimum - step);
      }
      if (s.maximum !== undefined) {
        inside.push(s.maximum);
        outside.push(s.maximum + step);
      }
      if (s.type === 'integer') outside.push((s.minimum ?? 0) + 0.5);
      outside.push(String(s.minimum ?? 0));
    }
    if (s.type === 'string') {
      if (s.maxLength !== undefined) outside.push('a'.repeat(s.maxLength + 1));
      if (s.minLength) outside.push('');
      outside.push(12);
    }
    if (s.type === 'boolean') {
      inside.push(true, false);
      outside.push('true');
    }
  }
  return { inside, outside };
}

function cases(schema: Schema, prefix: string): { inside: Case[]; outside: Case[] } {
  const inside: Case[] = [];
  const outside: Case[] = [];
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.properties) continue; // nested objects (agent) are covered by their own walk below
    const p = probes(prop);
    inside.push(...p.inside.map((value) => ({ path: `${prefix}/${name}`, value })));
    outside.push(...p.outside.map((value) => ({ path: `${prefix}/${name}`, value })));
  }
  return { inside, outside };
}

const record = cases(HandshakeRecord as unknown as Schema, 'body/records/0');
const batch = cases(HandshakeBatch as unknown as Schema, 'body');
const agent = cases((HandshakeBatch as unknown as Schema).properties!.agent!, 'body/agent');
const now = Date.now();

function bodyWith({ path, value }: Case, keep = false): unknown {
  const b = makeBatch(makeRecords(1)) as unknown as Record<string, unknown>;
  const parts = path.split('/').slice(1);
  let target = b as Record<string, unknown>;
  for (const part of parts.slice(0, -1))
    target = (Array.isArray(target) ? target[Number(part)] : target[part]) as Record<string, unknown>;
  target[parts.at(-1)!] = value;
  if (keep && parts[0] === 'records') keepIdentities(target as unknown as HandshakeRecord, parts.at(-1)!);
  return b;
}

/**
 * A bound probed on one field keeps the record's identities (connect = tcp + tls, quic exactly for h3)
 * by moving the other fields: the plausibility rules that refuse a record are tested elsewhere.
 */
function keepIdentities(r: HandshakeRecord, field: string): void {
  if (field === 'protocol') r.transport = r.protocol === 'h3' ? 'quic' : 'tcp';
  if (field === 'transport') r.protocol = r.transport === 'quic' ? 'h3' : 'h2';
  if (r.transport === 'quic' && field !== 'tcp') r.tcp = 0;
  if (field === 'connect') {
    r.tls = Math.min(r.tls, r.connect);
    r.tcp = Math.round((r.connect - r.tls) * 10) / 10;
  } else if (field === 'tcp' || field === 'tls' || field === 'protocol' || field === 'transport') {
    r.connect = Math.min(MAX_PHASE_MS, Math.round((r.tcp + r.tls) * 10) / 10);
  }
}

let t: TestApp;
beforeAll(async () => (t = await startApp()));
afterAll(async () => {
  await t.close();
  removeDir(t.dataDir);
});

describe('schema bounds through POST /v1/handshakes', () => {
  // Timestamps are additionally held to ±24 h of the collector's clock: probe ts and sentAt at "now".
  const isTime = (c: Case) => c.path.endsWith('/ts') || c.path === 'body/sentAt';
  const inside = [...record.inside, ...batch.inside, ...agent.inside].filter((c) => !isTime(c));
  const outside = [...record.outside, ...batch.outside, ...agent.outside];

  it('walks a meaningful number of bounds', () => {
    expect(inside.length).toBeGreaterThan(40);
    expect(outside.length).toBeGreaterThan(60);
  });

  it.each(inside.map((c) => [c.path, JSON.stringify(c.value), c] as const))('accepts %s = %s', async (_p, _v, c) => {
    const res = await postBatch(t.app, bodyWith(c, true), { gzip: true });
    expect(res.statusCode, res.body).toBe(202);
  });

  it.each(outside.map((c) => [c.path, JSON.stringify(c.value).slice(0, 40), c] as const))(
    'refuses %s = %s',
    async (path, _v, c) => {
      const res = await postBatch(t.app, bodyWith(c), { gzip: true });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain(path);
    },
  );

  it('accepts timestamps at now and refuses them 24 h away', async () => {
    expect((await postBatch(t.app, bodyWith({ path: 'body/records/0/ts', value: now }))).statusCode).toBe(202);
    expect(
      (await postBatch(t.app, bodyWith({ path: 'body/records/0/ts', value: now - 25 * 3600_000 }))).statusCode,
    ).toBe(400);
  });
});
