/**
 * The shared timing-entry reader: what the content script, the synthetic runner and the fixture
 * recorder take from an entry.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  connectionTimingOf,
  entryTupleOf,
  httpsHost,
  measurementOf,
  measurePhases,
  newConnectionsOf,
  newConnectionTupleOf,
  serverTimingOf,
  TIMING_FIELDS,
  tlsServerTimingOf,
} from '../src/classify/index';
import type { TimingEntryLike } from '../src/classify/index';
import { MAX_PHASE_MS } from '../src/constants';
import {
  FIREFOX_NAVIGATION_BEFORE_ORIGIN,
  FIREFOX_NAVIGATION_TLS_AT_ORIGIN,
  newTlsTimingArb,
  resourceEntry,
} from './arbitraries';

const entry = resourceEntry({
  name: 'https://static.example.com/app.js?user=42',
  serverTiming: [
    { name: 'db', description: 'users' },
    { name: 'tls', description: 'TLSv1.3 r' },
  ],
});

describe('connectionTimingOf', () => {
  it('copies exactly the timing fields, entry type and protocol: no URL, no other field', () => {
    const t = connectionTimingOf(entry)!;
    expect(Object.keys(t).sort()).toEqual(['entryType', 'nextHopProtocol', ...TIMING_FIELDS].sort());
    expect(t).toMatchObject({ entryType: 'resource', nextHopProtocol: 'h2', connectStart: 110, responseStart: 240 });
    expect(JSON.stringify(t)).not.toMatch(/example|user/i);
  });

  it('reads an absent nextHopProtocol as empty, and gives null for other entry types', () => {
    const { nextHopProtocol: _, ...without } = entry;
    expect(connectionTimingOf(without)!.nextHopProtocol).toBe('');
    expect(connectionTimingOf({ ...entry, entryType: 'paint' })).toBeNull();
  });
});

describe('newConnectionTupleOf', () => {
  /** The entry behind getters that count their reads, as a browser's live entry (each read a call into it). */
  function counted(e: TimingEntryLike): { entry: TimingEntryLike; reads: Map<string, number> } {
    const reads = new Map<string, number>();
    const entry = Object.create(null) as TimingEntryLike;
    for (const [k, v] of Object.entries(e))
      Object.defineProperty(entry, k, {
        get: () => {
          reads.set(k, (reads.get(k) ?? 0) + 1);
          return v as unknown;
        },
      });
    return { entry, reads };
  }

  it('is the entry tuple of a new connection, reading each field of the entry once', () => {
    const { entry: live, reads } = counted(entry);
    expect(newConnectionTupleOf(live)).toEqual(entryTupleOf(entry));
    expect(Math.max(...reads.values())).toBe(1);
  });

  it('rounds times to the microsecond, below any browser timer resolution, so nothing measured changes', () => {
    const tuple = newConnectionTupleOf({
      ...entry,
      connectStart: 110.40000000596046,
      secureConnectionStart: 150.0049,
    })!;
    expect(tuple.slice(8, 10)).toEqual([110.4, 150.005]);
  });

  it('gives null for reused, opaque and plain-HTTP connections without reading their Server-Timing or URL', () => {
    const reused = {
      ...entry,
      domainLookupStart: 100,
      domainLookupEnd: 100,
      connectStart: 100,
      secureConnectionStart: 100,
      connectEnd: 100,
    };
    const opaque = {
      ...entry,
      connectStart: 0,
      secureConnectionStart: 0,
      connectEnd: 0,
      requestStart: 0,
      responseStart: 0,
    };
    for (const e of [reused, opaque]) {
      const { entry: live, reads } = counted(e);
      expect(newConnectionTupleOf(live)).toBeNull();
      expect(reads.has('serverTiming') || reads.has('name')).toBe(false);
    }
    expect(newConnectionTupleOf({ ...entry, name: 'http://static.example.com/app.js' })).toBeNull();
  });

  it('gives only tuples the receiver accepts, and a connection opened before the time origin too (Firefox)', () => {
    // A new connection's timings moved so that it starts anywhere from 70 s before to 0.5 s after the time
    // origin (Firefox reports a navigation's connection a little before it, as negative times). It is sent
    // whenever its request starts after the origin and the connection at most MAX_PHASE_MS before it.
    fc.assert(
      fc.property(newTlsTimingArb(), fc.integer({ min: -70_000_000, max: 500_000 }), ({ timing }, startUs) => {
        const shift = startUs / 1000 - timing.connectStart;
        const shifted = Object.fromEntries(
          Object.entries(timing).map(([k, v]) => [k, typeof v === 'number' ? v + shift : v]),
        ) as typeof timing;
        const tuple = newConnectionTupleOf({ ...entry, ...shifted });
        expect(tuple !== null).toBe(shifted.requestStart > 0 && shifted.connectStart >= -MAX_PHASE_MS);
        if (tuple) expect(measurementOf(tuple, 1_790_000_000_000)).not.toBeNull();
      }),
    );
  });

  it('sends the connection of a Firefox navigation timestamped a millisecond before the time origin', () => {
    const navigation = { ...entry, ...FIREFOX_NAVIGATION_BEFORE_ORIGIN };
    const tuple = newConnectionTupleOf(navigation)!;
    expect(tuple.slice(4)).toEqual([0, -3, -1, -1, -1, -1, 13, 14, 15]);
    expect(measurementOf(tuple, 1_790_000_000_000)).toMatchObject({ startEpochMs: 1_789_999_999_999 });
    // A connection that starts before its own fetch did not come from it: neither sent nor taken.
    const before = { ...navigation, fetchStart: 0 };
    expect(newConnectionTupleOf(before)).toBeNull();
    expect(measurementOf(entryTupleOf(before), 1_790_000_000_000)).toBeNull();
  });

  it('sends it when its TLS handshake starts at the time origin itself (secureConnectionStart 0)', () => {
    const tuple = newConnectionTupleOf({ ...entry, ...FIREFOX_NAVIGATION_TLS_AT_ORIGIN })!;
    expect(tuple.slice(4)).toEqual([0, -3, -1, -1, -1, 0, 13, 14, 15]);
    const { measurements, counts } = newConnectionsOf([tuple], 1_790_000_000_000);
    expect(counts).toEqual({ opaque: 0, reused: 0, skipped: 0 });
    expect(measurePhases(measurements[0]!.timing)).toMatchObject({ tcp: 1, tls: 13, connect: 14 });
    // The same times over plain HTTP are a connection without TLS: not sent.
    const plain = { ...entry, ...FIREFOX_NAVIGATION_TLS_AT_ORIGIN, name: 'http://www.example.com/' };
    expect(newConnectionTupleOf(plain)).toBeNull();
  });
});

describe('Server-Timing', () => {
  it('keeps every metric as plain objects, and finds the tls one (at most 200 characters)', () => {
    expect(serverTimingOf(entry)).toEqual(entry.serverTiming);
    expect(serverTimingOf({})).toEqual([]);
    expect(tlsServerTimingOf(entry)).toBe('TLSv1.3 r');
    expect(tlsServerTimingOf({ serverTiming: [{ name: 'db', description: 'x' }] })).toBeNull();
    expect(tlsServerTimingOf({ serverTiming: [{ name: 'tls', description: 'x'.repeat(300) }] })).toHaveLength(200);
  });
});

describe('httpsHost', () => {
  it('is the hostname new URL gives, for any https URL as a browser serialises it', () => {
    const serialised = fc
      .tuple(
        fc.webUrl({ validSchemes: ['https'], withQueryParameters: true, withFragments: true }),
        fc.option(fc.integer({ min: 1, max: 65535 })),
        fc.boolean(),
      )
      .map(([u, port, userinfo]) => {
        const url = new URL(u);
        if (port !== null) url.port = String(port);
        if (userinfo) {
          url.username = 'user';
          url.password = 'p@ss:word';
        }
        return url.href;
      });
    fc.assert(
      fc.property(serialised, (href) => {
        expect(httpsHost(href)).toBe(new URL(href).hostname);
      }),
      { numRuns: 200 },
    );
    // 200 generated URLs take well under a second on a quiet machine; a CI machine running several test
    // files on 2 cores took over 5 s (vitest's default), so the limit is for a hang, not for speed.
  }, 60_000);

  it('handles IPv6 literals and ports, and refuses what is not https', () => {
    expect(httpsHost('https://[::1]:8443/x')).toBe('[::1]');
    expect(httpsHost('https://[2001:db8::1]/')).toBe('[2001:db8::1]');
    expect(httpsHost('https://Example.COM:443/')).toBe('example.com');
    expect(httpsHost('http://example.com/')).toBeNull();
    expect(httpsHost('data:,x')).toBeNull();
    expect(httpsHost('chrome-extension://abc/content.js')).toBeNull();
    expect(httpsHost('https://')).toBeNull();
  });
});
