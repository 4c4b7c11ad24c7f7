import { createServer, type IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { HandshakeBatch, HandshakeRecord } from '@tlsrum/shared';
import example from '@tlsrum/shared/examples/batch.json' with { type: 'json' };
import { CollectorError, endpointOf, sendRecords, toBatches } from '../src/collector-client';

const agent = { name: 'tlsrum-synth', version: '0.1.0' };
const records = (n: number) =>
  Array.from({ length: n }, () => ({ ...(example.records[0] as HandshakeRecord), source: 'synthetic' as const }));

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

/** A scripted collector: answers each request with the next status in `statuses` (then 202). */
async function fakeCollector(statuses: number[]) {
  const seen: Array<{ batch: HandshakeBatch; encoding: string | undefined; authorization: string | undefined }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const batch = JSON.parse(gunzipSync(Buffer.concat(chunks)).toString()) as HandshakeBatch;
      seen.push({ batch, encoding: req.headers['content-encoding'], authorization: req.headers.authorization });
      const status = statuses.shift() ?? 202;
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(status === 503 ? { 'retry-after': '0.05' } : {}),
      });
      res.end(
        JSON.stringify(
          status === 202
            ? { accepted: batch.records.length }
            : { statusCode: status, error: 'x', message: 'refused: records/0/tls' },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  close = () => new Promise((r) => server.close(() => r()));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

describe('collector client', () => {
  it('splits into gzip batches of at most 500 records, each with its own batchId', async () => {
    const c = await fakeCollector([]);
    const sent = await sendRecords(records(1201), { collector: c.url, agent });
    expect(sent).toMatchObject({ batches: 3, accepted: 1201 });
    expect(c.seen.map((s) => s.batch.records.length)).toEqual([500, 500, 201]);
    expect(new Set(c.seen.map((s) => s.batch.batchId)).size).toBe(3);
    expect(c.seen.every((s) => s.encoding === 'gzip' && s.batch.v === 1 && s.batch.agent.name === 'tlsrum-synth')).toBe(
      true,
    );
  });

  it('retries 503 with the same batchId, and stops at a 400 with the collector message', async () => {
    const c = await fakeCollector([503, 503]);
    await sendRecords(records(3), { collector: `${c.url}/`, agent, maxBackoffMs: 100 });
    expect(c.seen).toHaveLength(3);
    expect(new Set(c.seen.map((s) => s.batch.batchId)).size).toBe(1);

    const bad = await fakeCollector([400]);
    await expect(sendRecords(records(1), { collector: bad.url, agent })).rejects.toThrow(
      /collector refused the batch: HTTP 400.*records\/0\/tls/,
    );
  });

  it("sends the site's read token as Authorization: Bearer on every batch, and no Authorization without one", async () => {
    const c = await fakeCollector([]);
    await sendRecords(records(501), { collector: c.url, agent, token: 'tlsrum_rt_owner-of-the-site' });
    expect(c.seen.map((s) => s.authorization)).toEqual([
      'Bearer tlsrum_rt_owner-of-the-site',
      'Bearer tlsrum_rt_owner-of-the-site',
    ]);
    const plain = await fakeCollector([]);
    await sendRecords(records(1), { collector: plain.url, agent });
    expect(plain.seen.map((s) => s.authorization)).toEqual([undefined]);
  });

  it('a refused token is said as such, in the collector’s words, and not retried', async () => {
    const c = await fakeCollector([401]);
    await expect(sendRecords(records(1), { collector: c.url, agent, token: 'wrong-token' })).rejects.toThrow(
      /collector refused the read token given with --token: HTTP 401: refused: records\/0\/tls/,
    );
    expect(c.seen).toHaveLength(1);
  });

  it('gives up on an unreachable collector with a clear error', async () => {
    await expect(
      sendRecords(records(1), { collector: 'http://127.0.0.1:9', agent, attempts: 2, maxBackoffMs: 10 }),
    ).rejects.toThrow(/collector unreachable at http:\/\/127\.0\.0\.1:9\/v1\/handshakes after 2 attempts/);
    expect(() => endpointOf('ftp://x')).toThrow(CollectorError);
    expect(() => toBatches(records(1), agent, 501)).toThrow(RangeError);
  });
});
