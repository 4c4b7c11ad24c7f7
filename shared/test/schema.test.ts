import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { HandshakeBatch, HandshakeRecord } from '../src/index';
import example from '../examples/batch.json' with { type: 'json' };

describe('HandshakeBatch schema', () => {
  it('accepts the documented example batch', () => {
    expect([...Value.Errors(HandshakeBatch, example)]).toEqual([]);
  });
  it('rejects a batch over 500 records and an empty one', () => {
    const record = example.records[0];
    expect(Value.Check(HandshakeBatch, { ...example, records: Array.from({ length: 501 }, () => record) })).toBe(false);
    expect(Value.Check(HandshakeBatch, { ...example, records: [] })).toBe(false);
  });
  it('bounds phases, hostnames and enums', () => {
    const r = example.records[0]!;
    expect(Value.Check(HandshakeRecord, { ...r, tls: 60_000.1 })).toBe(false);
    expect(Value.Check(HandshakeRecord, { ...r, tls: -1 })).toBe(false);
    expect(Value.Check(HandshakeRecord, { ...r, site: 'WWW.Example.com' })).toBe(false);
    expect(Value.Check(HandshakeRecord, { ...r, site: 'example.com/path' })).toBe(false);
    expect(Value.Check(HandshakeRecord, { ...r, protocol: 'spdy' })).toBe(false);
    expect(Value.Check(HandshakeRecord, { ...r, tlsVersion: '1.1' })).toBe(false);
  });
});
