/**
 * Request bodies: JSON only (415 otherwise), plain or `Content-Encoding: gzip`. Two explicit limits:
 * the body as sent (bodyLimitBytes, counted before any inflation) and the body after gunzip
 * (inflatedLimitBytes, Fastify's own bodyLimit, which reads the inflated stream). The inflated stream
 * is abandoned at the limit, so a gzip bomb is refused without ever being inflated whole.
 */
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { httpError } from './error-handler';

export function installRequestBody(app: FastifyInstance, limits: { bodyLimitBytes: number; inflatedLimitBytes: number }): void {
  // Only JSON is ever accepted; Fastify answers 415 for any other content type.
  app.removeContentTypeParser('text/plain');

  app.addHook('preParsing', async (request, _reply, payload) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.bodyLimitBytes) {
      throw httpError(413, `body is larger than ${limits.bodyLimitBytes} bytes`);
    }
    const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity' && encoding !== 'gzip') {
      throw httpError(415, `content-encoding "${encoding}" is not supported: send gzip or no encoding`);
    }
    const counted = payload.pipe(byteCap(limits.bodyLimitBytes));
    payload.on('error', (err) => counted.destroy(err));
    if (encoding === 'identity') return counted;
    const gunzip = createGunzip();
    counted.on('error', (err) => gunzip.destroy(err));
    gunzip.on('error', () => counted.unpipe(gunzip));
    // The inflated bytes are capped here too, not only by Fastify's bodyLimit: the stream errors at the
    // limit and the gunzip is destroyed, so a gzip bomb stops inflating within one chunk of the limit.
    const capped = byteCap(limits.inflatedLimitBytes);
    gunzip.on('error', (err) => capped.destroy(err));
    capped.on('error', () => {
      gunzip.destroy();
      counted.destroy();
    });
    const inflated = counted.pipe(gunzip).pipe(capped) as Readable & { receivedEncodedLength?: number };
    // Fastify compares receivedEncodedLength with Content-Length: it must describe the bytes sent.
    counted.on('data', (chunk: Buffer) => {
      inflated.receivedEncodedLength = (inflated.receivedEncodedLength ?? 0) + chunk.length;
    });
    return inflated;
  });
}

/** Passes bytes through until `max`, then fails with 413. */
function byteCap(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) done(httpError(413, `body is larger than ${max} bytes`));
      else done(null, chunk);
    },
  });
}
