import type { HandshakeRecord } from '@tlsrum/shared';

/** A valid record (as the extension builds them) with a current timestamp. */
export function record(overrides: Partial<HandshakeRecord> = {}): HandshakeRecord {
  return {
    ts: Date.now() - 1_000,
    site: null,
    entryType: 'resource',
    protocol: 'h2',
    transport: 'tcp',
    tlsVersion: null,
    tlsVersionSource: 'unknown',
    resumed: null,
    resumedSource: 'unknown',
    handshakeClass: '1rtt',
    dns: 1,
    tcp: 40,
    tls: 41.5,
    connect: 81.5,
    ttfb: 50,
    browser: 'chromium',
    browserMajor: 156,
    os: 'linux',
    effectiveType: '4g',
    rttHint: 50,
    source: 'rum',
    clientToken: 'test-token-0001',
    ...overrides,
  };
}
