/**
 * Hostile input against the real collector process over real sockets: each request is answered with
 * the right 4xx (or the connection is cut, for slow-loris), no answer carries a stack trace, the process
 * stays up, keeps serving, and its peak memory stays bounded.
 */
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBatch, makeRecords, removeDir, freshStoreDir } from '../support/helpers';
import { startCollector, stopCollector, type Collector } from '../support/process';

let c: Collector;
let dataDir: string;
let port: number;
const bodies: string[] = [];

beforeAll(async () => {
  dataDir = freshStoreDir('tlsrum-hostile-');
  c = await startCollector({ DATA_DIR: dataDir, REQUEST_TIMEOUT_MS: '2000' });
  port = Number(new URL(c.url).port);
}, 60_000);
afterAll(async () => {
  if (c) await stopCollector(c, 'SIGKILL');
  removeDir(dataDir);
});

async function post(body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const res = await fetch(`${c.url}/v1/handshakes`, { method: 'POST', headers, body });
  const text = await res.text();
  bodies.push(text);
  return { status: res.status, text };
}
const gz = (s: string | Buffer) => gzipSync(s);
const json = { 'content-type': 'application/json' };
const jsonGz = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
const valid = () => JSON.stringify(makeBatch(makeRecords(2)));
/** A valid batch with `raw` JSON text spliced in as the first record's `field`. */
const withRecordField = (field: string, raw: string) => {
  const b = JSON.parse(valid());
  b.records[0][field] = '__RAW__';
  return JSON.stringify(b).replace('"__RAW__"', raw);
};

/** Sends raw bytes, returns what the server answered before it closed (or '' at `waitMs`). */
function rawRequest(
  bytes: Buffer | string,
  waitMs: number,
  keepOpen = true,
): Promise<{ response: string; closed: boolean }> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let response = '';
    let closed = false;
    s.on('data', (d) => (response += d.toString('latin1')));
    s.on('error', () => {});
    s.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ response, closed });
    });
    s.write(bytes);
    if (!keepOpen) s.end();
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ response, closed });
    }, waitMs);
  });
}

describe('hostile input (real process, real sockets)', () => {
  it.each([
    ['truncated JSON', '{"v":1,'],
    ['not an object', '[]'],
    ['null', 'null'],
    ['trailing comma', '{"v":1,}'],
    ['a NUL byte', '\u0000'],
    ['NaN literal', withRecordField('tls', 'NaN')],
    ['Infinity literal', withRecordField('tls', 'Infinity')],
  ])('malformed JSON (%s) → 400', async (_n, body) => {
    expect((await post(body, json)).status).toBe(400);
  });

  it.each([
    ['v as a string', valid().replace('"v":1', '"v":"1"')],
    ['records as an object', valid().replace(/"records":\[.*\]\}$/, '"records":{}}')],
    ['records of numbers', valid().replace(/"records":\[.*\]\}$/, '"records":[1,2]}')],
    ['agent as a string', valid().replace(/"agent":\{[^}]*\}/, '"agent":"x"')],
    ['batchId as a number', valid().replace(/"batchId":"[^"]*"/, '"batchId":5')],
    ['ts as a string', withRecordField('ts', '"1700000000000"')],
    ['resumed as a string', withRecordField('resumed', '"true"')],
  ])('wrong types (%s) → 400', async (_n, body) => {
    expect((await post(body, json)).status).toBe(400);
  });

  it.each([
    ['a negative timestamp', withRecordField('ts', '-1')],
    ['a negative phase', withRecordField('tls', '-0.0001')],
    ['an overflowing number (1e309)', withRecordField('tls', '1e309')],
    ['a huge integer', withRecordField('browserMajor', '1e21')],
    ['"NaN" as a string', withRecordField('dns', '"NaN"')],
    ['a fractional integer field', withRecordField('certChainLength', '1.5')],
  ])('negative and NaN-like numbers (%s) → 400', async (_n, body) => {
    expect((await post(body, json)).status).toBe(400);
  });

  it('deep nesting → 400 (or dropped as an unknown field), 413 over the limit, never a crash', async () => {
    const deepArrays = '['.repeat(150_000) + ']'.repeat(150_000);
    expect((await post(gz(deepArrays), jsonGz)).status).toBe(400);
    const deepObjects = valid().replace(/\}$/, `,"x":${'{"a":'.repeat(60_000)}1${'}'.repeat(60_000)}}`);
    // V8's JSON parser is not recursive: deep nesting in an unknown field parses, and the field is dropped.
    expect([202, 400]).toContain((await post(gz(deepObjects), jsonGz)).status);
    expect((await post(deepArrays, json)).status).toBe(413);
  });

  it('huge arrays and strings → 400 (gzip) / 413 (plain)', async () => {
    const batch = JSON.parse(valid());
    expect((await post(gz(JSON.stringify({ ...batch, records: new Array(600_000).fill(0) })), jsonGz)).status).toBe(
      413,
    );
    expect((await post(gz(JSON.stringify({ ...batch, records: new Array(100_000).fill(0) })), jsonGz)).status).toBe(
      400,
    );
    expect(
      (await post(gz(JSON.stringify({ ...batch, records: new Array(501).fill(batch.records[0]) })), jsonGz)).status,
    ).toBe(400);
    const longToken = JSON.stringify({
      ...batch,
      records: [{ ...batch.records[0], clientToken: 'x'.repeat(900_000) }],
    });
    expect((await post(gz(longToken), jsonGz)).status).toBe(400);
    expect((await post(longToken, json)).status).toBe(413);
  });

  it('gzip bombs → 413 without inflating them whole, many at once', async () => {
    const bomb = gz(Buffer.alloc(256 * 1024 * 1024, 0x20)); // 256 MiB of spaces, ~256 KiB → under the as-sent limit?
    const small = gz(Buffer.alloc(64 * 1024 * 1024, 0x20));
    expect(small.length).toBeLessThan(256 * 1024);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => post(small, jsonGz).then((r) => r.status)));
    expect(statuses.every((s) => s === 413)).toBe(true);
    expect((await post(bomb, jsonGz)).status).toBe(413);
    // Many small members, each inflating 1 MiB: the total is what counts.
    const members = Buffer.concat(Array.from({ length: 40 }, () => gz(Buffer.alloc(1024 * 1024, 0x20))));
    expect((await post(members, jsonGz)).status).toBe(413);
    // gzip inside gzip: the inner layer is not JSON.
    expect((await post(gz(small), jsonGz)).status).toBe(400);
  });

  it('wrong content types and encodings → 415; a gzip header on plain text → 400', async () => {
    expect((await post(valid(), { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(valid(), { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await post(valid(), { 'content-type': 'multipart/form-data; boundary=x' })).status).toBe(415);
    expect((await post(valid(), { 'content-type': 'application/jsonx' })).status).toBe(415);
    expect((await post(valid(), { 'content-type': 'application/json', 'content-encoding': 'br' })).status).toBe(415);
    expect((await post(valid(), { 'content-type': 'application/json', 'content-encoding': 'deflate' })).status).toBe(
      415,
    );
    expect((await post(valid(), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status).toBe(400);
  });

  it('invalid UTF-8 in a bounded field → 400', async () => {
    const text = valid();
    const at = text.indexOf('"clientToken":"') + '"clientToken":"'.length;
    const bytes = Buffer.concat([
      Buffer.from(text.slice(0, at)),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      Buffer.from(text.slice(at)),
    ]);
    expect((await post(bytes, json)).status).toBe(400);
    const agentAt = text.indexOf('"name":"') + '"name":"'.length;
    expect(
      (
        await post(
          Buffer.concat([
            Buffer.from(text.slice(0, agentAt)),
            Buffer.from([0xed, 0xa0, 0x80]),
            Buffer.from(text.slice(agentAt)),
          ]),
          json,
        )
      ).status,
    ).toBe(400);
  });

  it('prototype-pollution keys → 400, and nothing is polluted', async () => {
    expect((await post(valid().replace(/^\{/, '{"__proto__":{"polluted":1},'), json)).status).toBe(400);
    expect((await post(valid().replace(/^\{/, '{"constructor":{"prototype":{"polluted":1}},'), json)).status).toBe(400);
    expect((await post(valid().replace('"records":[{', '"records":[{"__proto__":{"polluted":1},'), json)).status).toBe(
      400,
    );
    // The same keys spelled with JSON escapes (the parser's fast path only takes bodies without a backslash).
    expect((await post(valid().replace(/^\{/, '{"\\u005f_proto__":{"polluted":1},'), json)).status).toBe(400);
    expect(
      (await post(valid().replace(/^\{/, '{"constru\\u0063tor":{"prototype":{"polluted":1}},'), json)).status,
    ).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('oversized headers → 431 from the HTTP parser', async () => {
    const { response } = await rawRequest(
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
      5000,
    );
    expect(response).toMatch(/^HTTP\/1\.1 431/);
  });

  it('a request whose body never finishes (slow loris) is cut off at REQUEST_TIMEOUT_MS', async () => {
    const head = `POST /v1/handshakes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"v":1,`;
    const started = Date.now();
    const body = await rawRequest(head, 15_000);
    expect(body.closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
    if (body.response) expect(body.response).toMatch(/^HTTP\/1\.1 (408|400)/);
    // Headers that never finish, too.
    const headers = await rawRequest('POST /v1/handshakes HTTP/1.1\r\nHost: x\r\nContent-Ty', 15_000);
    expect(headers.closed).toBe(true);
  });

  it('a body shorter than its Content-Length, then a closed socket, is no crash', async () => {
    await rawRequest(
      'POST /v1/handshakes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"v":1',
      1000,
      false,
    );
    await rawRequest(
      'POST /v1/handshakes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n',
      2000,
    );
    await rawRequest(
      'POST /v1/handshakes HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n',
      2000,
    );
  });

  it('afterwards: the process is up, serves valid batches, sent no stack trace, and its peak memory stayed bounded', async () => {
    expect(c.proc.exitCode).toBeNull();
    expect((await fetch(`${c.url}/healthz`)).status).toBe(200);
    expect((await post(valid(), json)).status).toBe(202);
    for (const b of bodies) {
      expect(b).not.toMatch(/\bat .*\(.*:\d+:\d+\)|node_modules|\/src\//);
    }
    const status = readFileSync(`/proc/${c.proc.pid}/status`, 'utf8');
    const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)![1]);
    console.info(
      `hostile suite: collector peak RSS ${Math.round(peakKiB / 1024)} MiB over ${bodies.length} hostile requests`,
    );
    // chDB alone idles at ~250 MB; a bomb inflated whole would add hundreds of MiB per request.
    expect(peakKiB / 1024).toBeLessThan(900);
  });
});
