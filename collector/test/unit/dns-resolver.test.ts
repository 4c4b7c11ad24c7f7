import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsResolver } from '../../src/platform/net/public-connect.js';

describe('the DNS resolver the collector connects through', () => {
  let silent: Socket;
  let server: string;

  beforeAll(async () => {
    silent = createSocket('udp4');
    await new Promise<void>((ok) => silent.bind(0, '127.0.0.1', ok));
    server = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(() => silent.close());

  it('a DNS server that never answers reads as "did not answer within N s", whichever timer fires first', async () => {
    const resolver = dnsResolver({ dnsServers: [server], timeoutMs: 400 });
    await expect(resolver.addresses('silent.example.org')).rejects.toMatchObject({
      message: 'the DNS lookup of silent.example.org did not answer within 0.4 s',
      code: 'timeout',
    });
    await expect(resolver.txt('_tlsrum.silent.example.org')).rejects.toMatchObject({
      message: 'the DNS lookup of _tlsrum.silent.example.org did not answer within 0.4 s',
    });
  });
});
