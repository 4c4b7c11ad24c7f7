/**
 * The what-if's client sample (whatif/query.ts, migration 0026): the bound on the sample table's sort key
 * never leaves out a client that the exact condition on the token's hash keeps.
 */
import { describe, expect, it } from 'vitest';
import { CLIENT_SAMPLE_SHARE, connectionsTable, sampleBound } from '../../src/whatif/query';

const TWO_64 = 2n ** 64n;

/** A reproducible 64-bit value (splitmix64). */
function* hashes(seed: bigint): Generator<bigint> {
  let x = seed;
  for (;;) {
    x = (x + 0x9e3779b97f4a7c15n) % TWO_64;
    let z = x;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) % TWO_64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) % TWO_64;
    yield z ^ (z >> 31n);
  }
}

describe("the what-if's client sample", () => {
  it('bounds the sort key above every hash whose share the exact condition keeps, at the edge of the share too', () => {
    const gen = hashes(7n);
    for (let i = 0; i < 20_000; i++) {
      // Any hash, and hashes at most a sixteenth of the range (the sample table's).
      const raw = gen.next().value as bigint;
      const h = i % 2 ? raw : raw / 16n;
      // The share at which the hash is just kept: its own value / 2^64 as Float64 (what ClickHouse compares).
      const share = Number(h) / 2 ** 64;
      expect(BigInt(sampleBound(share)) >= h, `hash ${h}`).toBe(true);
      // …and not far above it: the bound selects a range of the key, not the table.
      expect(BigInt(sampleBound(share)) - h <= 8192n).toBe(true);
    }
    expect(sampleBound(1)).toBe(String(TWO_64 - 1n));
    expect(sampleBound(0)).toBe('4096');
  });

  it('reads the sample table only for shares it holds every client of', () => {
    expect(connectionsTable(0.001)).toBe('handshakes_client_sample');
    expect(connectionsTable(CLIENT_SAMPLE_SHARE)).toBe('handshakes_client_sample');
    expect(connectionsTable(CLIENT_SAMPLE_SHARE + 1e-12)).toBe('handshakes');
    expect(connectionsTable(1)).toBe('handshakes');
  });
});
