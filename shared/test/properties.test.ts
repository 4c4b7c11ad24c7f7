/**
 * Property-based tests (fast-check) of the record schema, hostname normalisation and the classifier.
 */
import { domainToASCII } from 'node:url';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import {
  classificationFields,
  classifyHandshake,
  connectionKind,
  EVIDENCE_SOURCES,
  HANDSHAKE_CLASSES,
  HandshakeBatch,
  HandshakeRecord,
  Hostname,
  MAX_CERT_CHAIN_BYTES,
  MAX_CERT_KEY_BITS,
  MAX_PHASE_MS,
  normalizeHostname,
  PROTOCOLS,
  securityFields,
  TRANSPORTS,
} from '../src/index';
import { batchArb, hostnameArb, newTlsTimingArb, recordArb, securityInfoArb, timingArb } from './arbitraries';

const NUMERIC_FIELDS = {
  dns: MAX_PHASE_MS,
  tcp: MAX_PHASE_MS,
  tls: MAX_PHASE_MS,
  connect: MAX_PHASE_MS,
  ttfb: MAX_PHASE_MS,
  browserMajor: 999,
  certChainLength: 16,
  certKeyBits: MAX_CERT_KEY_BITS,
  certChainBytes: MAX_CERT_CHAIN_BYTES,
  rttHint: 10_000,
} as const;

describe('schema properties', () => {
  it('every generated batch is valid', () => {
    fc.assert(
      fc.property(batchArb(), (b) => Value.Check(HandshakeBatch, b)),
      { numRuns: 300 },
    );
  });

  it('any numeric field out of range, fractional where an integer is due, or not finite is refused', () => {
    const bad = fc.oneof(
      fc.constant(-1),
      fc.constant(-0.1),
      fc.constant(Number.NaN),
      fc.constant(Number.POSITIVE_INFINITY),
      fc.constant('12'),
      fc.double({ min: 1e6, max: 1e300, noNaN: true }),
    );
    fc.assert(
      fc.property(recordArb(), fc.constantFrom(...Object.keys(NUMERIC_FIELDS)), bad, (r, field, value) => {
        expect(Value.Check(HandshakeRecord, { ...r, [field]: value })).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('a phase just above its bound is refused, at the bound accepted', () => {
    fc.assert(
      fc.property(recordArb(), fc.constantFrom('dns', 'tcp', 'tls', 'connect', 'ttfb'), (r, f) => {
        expect(Value.Check(HandshakeRecord, { ...r, [f]: MAX_PHASE_MS })).toBe(true);
        expect(Value.Check(HandshakeRecord, { ...r, [f]: MAX_PHASE_MS + 0.1 })).toBe(false);
      }),
    );
  });

  it('any string that is not an enum member is refused for every enum field', () => {
    fc.assert(
      fc.property(
        recordArb(),
        fc.constantFrom('protocol', 'transport', 'handshakeClass', 'tlsVersionSource', 'browser', 'os', 'source'),
        fc.string(),
        (r, f, s) => {
          fc.pre(
            ![
              ...PROTOCOLS,
              ...TRANSPORTS,
              ...HANDSHAKE_CLASSES,
              ...EVIDENCE_SOURCES,
              'chrome',
              'chromium',
              'edge',
              'firefox',
              'safari',
              'other',
              'windows',
              'macos',
              'linux',
              'android',
              'ios',
              'chromeos',
              'rum',
              'synthetic',
            ].includes(s),
          );
          expect(Value.Check(HandshakeRecord, { ...r, [f]: s })).toBe(false);
        },
      ),
    );
  });
});

describe('hostname properties', () => {
  it('valid hostnames are fixed points; case, surrounding space and a trailing dot are normalised away', () => {
    fc.assert(
      fc.property(hostnameArb, fc.boolean(), fc.boolean(), (h, upper, dot) => {
        expect(normalizeHostname(h, domainToASCII)).toBe(h);
        const messy = ` ${upper ? h.toUpperCase() : h}${dot ? '.' : ''} `;
        expect(normalizeHostname(messy, domainToASCII)).toBe(h);
      }),
      { numRuns: 500 },
    );
  });

  it('whatever the input, the result is null or a hostname the schema accepts, and normalising it again changes nothing', () => {
    const anyHost = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      hostnameArb.map((h) => `${h}/${h}`),
    );
    fc.assert(
      fc.property(anyHost, (raw) => {
        const n = normalizeHostname(raw, domainToASCII);
        if (n === null) return;
        expect(Value.Check(Hostname, n)).toBe(true);
        expect(normalizeHostname(n, domainToASCII)).toBe(n);
        expect(n).not.toMatch(/[/?#@:\s]/);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('classifier properties', () => {
  it('never throws on any timing; its output is consistent, and in range for every new connection', () => {
    // Garbage timings, consistent ones, and consistent ones with one field replaced by garbage.
    const timings = fc.oneof(
      timingArb,
      newTlsTimingArb().map((t) => t.timing),
      fc
        .tuple(
          newTlsTimingArb(),
          timingArb,
          fc.constantFrom(
            'connectStart',
            'secureConnectionStart',
            'connectEnd',
            'requestStart',
            'responseStart',
            'domainLookupEnd',
          ),
        )
        .map(([t, junk, field]) => ({ ...t.timing, [field]: junk[field as keyof typeof junk] })),
    );
    fc.assert(
      fc.property(
        timings,
        fc.option(securityInfoArb, { nil: null }),
        fc.option(fc.double(), { nil: null }),
        (timing, security, since) => {
          const c = classifyHandshake({ timing, security, history: { msSincePriorHandshake: since } });
          // Callers classify only new connections (connectionKind); anything else must merely not throw.
          if (connectionKind(timing) !== 'new') return;
          expect(HANDSHAKE_CLASSES).toContain(c.handshakeClass);
          expect(PROTOCOLS).toContain(c.protocol);
          expect(c.transport).toBe(c.protocol === 'h3' ? 'quic' : 'tcp');
          expect(c.tlsVersion === null).toBe(c.tlsVersionSource === 'unknown');
          expect(c.resumed === null).toBe(c.resumedSource === 'unknown');
          for (const v of Object.values(c.phases)) {
            expect(v).toBeGreaterThanOrEqual(0);
            expect(v).toBeLessThanOrEqual(MAX_PHASE_MS);
            expect(Math.round(v * 10) / 10).toBe(v);
          }
          if (c.handshakeClass === '0rtt') expect(c.resumed === true || security?.resumed === false).toBe(true);
          if (c.transport === 'quic' && !security?.tlsVersion) expect(c.tlsVersion).toBe('1.3');
          // Deterministic.
          expect(classifyHandshake({ timing, security, history: { msSincePriorHandshake: since } })).toEqual(c);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('counts TLS round trips against the TCP round trip: 1 RTT → 1rtt, 2 RTT → full-2rtt, early data → 0rtt', () => {
    fc.assert(
      fc.property(newTlsTimingArb(), ({ timing, tlsRoundTrips }) => {
        const c = classifyHandshake({ timing });
        expect(c.handshakeClass).toBe(tlsRoundTrips === 0 ? '0rtt' : tlsRoundTrips === 1 ? '1rtt' : 'full-2rtt');
        if (tlsRoundTrips === 2)
          expect(c).toMatchObject({ tlsVersion: '1.2', tlsVersionSource: 'inferred', resumed: false });
        if (tlsRoundTrips === 0)
          expect(c).toMatchObject({ tlsVersion: '1.3', resumed: true, resumedSource: 'implied' });
      }),
      { numRuns: 1000 },
    );
  });

  it('below the minimum RTT estimate the class is unknown, never a guess', () => {
    fc.assert(
      fc.property(newTlsTimingArb({ minRttMs: 0.5, maxRttMs: 9.5, cpuMs: 0 }), ({ timing, tlsRoundTrips }) => {
        fc.pre(tlsRoundTrips !== 0);
        expect(classifyHandshake({ timing }).handshakeClass).toBe('unknown');
      }),
    );
  });

  it('a classified new connection plus the client fields is a record the schema accepts', () => {
    fc.assert(
      fc.property(
        newTlsTimingArb(),
        recordArb(),
        fc.option(securityInfoArb, { nil: null }),
        ({ timing }, base, security) => {
          const c = classifyHandshake({ timing, security });
          const record = { ...base, ...classificationFields(c), ...securityFields(security) };
          expect([...Value.Errors(HandshakeRecord, record)]).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
