/**
 * HTTP/3 with real Chromium against Debian's Caddy: the response's connection is a QUIC session in the
 * NetLog; TLS 1.3 is observed, and a warm visit's accepted 0-RTT proves resumption.
 */
import { describe, expect, it } from 'vitest';
import { runSynthetic } from '@tlsrum/synth';
import { startCaddy } from './caddy';
import { labOptions, useTestServer } from './setup';

const lab = useTestServer(startCaddy);

describe('synthetic runner, Chromium over HTTP/3', () => {
  it('records h3/quic with TLS 1.3 observed; a warm visit with accepted 0-RTT is resumed (observed) and 0rtt', async () => {
    const r = await runSynthetic({
      ...labOptions(lab.certs),
      urls: [`https://a.synth.test:${lab.server.port}/`],
      mode: 'warm',
      runs: 1,
      h3Origins: [`a.synth.test:${lab.server.port}`],
    });
    expect(r.failedVisits).toBe(0);
    for (const v of r.visits) {
      const c = v.connections.find((x) => x.entryType === 'navigation')!;
      expect(c.kind).toBe('new');
      expect(c.netlog?.transport).toBe('quic');
      expect(c.record).toMatchObject({
        protocol: 'h3',
        transport: 'quic',
        tlsVersion: '1.3',
        tlsVersionSource: 'observed',
      });
      expect(c.record!.cipher).toMatch(/^TLS_(AES_(128|256)_GCM_SHA(256|384)|CHACHA20_POLY1305_SHA256)$/);
    }
    const prime = r.visits[0]!.connections[0]!;
    expect(prime.netlog?.earlyDataAccepted).toBe(false);
    expect(prime.record!.resumed).toBeNull();
    const warm = r.visits[1]!.connections.find((x) => x.entryType === 'navigation')!;
    // Caddy (quic-go) accepts 0-RTT: NetLog and timing must agree on it.
    expect(warm.netlog?.earlyDataAccepted).toBe(true);
    expect(warm.record).toMatchObject({ resumed: true, resumedSource: 'observed', handshakeClass: '0rtt' });
    expect(warm.timing.requestStart).toBeLessThan(warm.timing.connectEnd);
  });
});
