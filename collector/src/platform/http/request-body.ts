/**
 * Request bodies: JSON only (415 otherwise), plain or `Content-Encoding: gzip`. Two explicit limits:
 * the body as sent (bodyLimitBytes, counted while it arrives, before any inflation) and the body after
 * gunzip (inflatedLimitBytes). Inflation stops at that limit (`maxOutputLength`), so a gzip bomb is
 * refused without ever being inflated whole.
 *
 * Why one synchronous gunzip of the whole (small) body instead of a gunzip stream: a stream per request
 * cost three streams, a zlib context and a libuv-threadpool hop per chunk, and the threadpool
 * is shared with the spool's fdatasync and the store's inserts. The ingest profile showed the stream
 * path at ~15 % of the main thread (bench:ingest's profile); one gunzipSync of a 1 KiB body takes a few µs.
 */
import { gunzipSync } from 'node:zlib';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { httpError } from './error-handler';

const requestBody: FastifyPluginAsync = async (app) => {
  const limits = app.config;
  // Only JSON is ever accepted; Fastify answers 415 for any other content type.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  // Fastify's own JSON parsing (secure-json-parse: __proto__ and constructor keys are refused).
  const parseJson = app.getDefaultJsonParser('error', 'error');

  app.addHook('preParsing', async (request, _reply, payload) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.bodyLimitBytes) {
      throw httpError(413, `body is larger than ${limits.bodyLimitBytes} bytes`);
    }
    const encoding = contentEncoding(request);
    if (encoding !== 'identity' && encoding !== 'gzip') {
      throw httpError(415, `content-encoding "${encoding}" is not supported: send gzip or no encoding`);
    }
    return payload;
  });

  // bodyLimit here counts the bytes as they arrive (compressed or not) and stops reading past it: 413.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: limits.bodyLimitBytes },
    (request, body: Buffer, done) => {
      let bytes = body;
      if (contentEncoding(request) === 'gzip') {
        try {
          // Concatenated gzip members are inflated as one body (RFC 1952 §2.2); the limit is on the total.
          bytes = gunzipSync(body, { maxOutputLength: limits.inflatedLimitBytes });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
            done(httpError(413, `body is larger than ${limits.inflatedLimitBytes} bytes once inflated`), undefined);
          } else {
            done(httpError(400, 'body is not valid gzip'), undefined);
          }
          return;
        }
      }
      const text = bytes.toString('utf8');
      if (cannotPoison(text)) {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          // Fastify's parser words the 400 (and handles a BOM or an empty body).
          parseJson(request, text, done);
          return;
        }
        done(null, value);
        return;
      }
      parseJson(request, text, done);
    },
  );
};

/** Not encapsulated: every route reads its body this way. */
export default fp(requestBody, { name: 'request-body', decorators: { fastify: ['config'] } });

/**
 * True when no key of `text` can be `__proto__` or `constructor`: without a backslash no JSON string
 * can spell them with escapes, so their plain spelling is the only one to look for. Such a body (every
 * honest batch) skips secure-json-parse's two escape-aware regex scans over the whole text — the same
 * answer, found with three substring searches.
 */
function cannotPoison(text: string): boolean {
  return !text.includes('\\') && !text.includes('__proto__') && !text.includes('constructor');
}

function contentEncoding(request: FastifyRequest): string {
  return String(request.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
}
