/**
 * The read routes' answers go out compressed to a client that accepts it (brotli, else gzip), as the
 * dashboard's own files do. A dashboard view reads about 400 kB of JSON, a tenth of that compressed: on a
 * home or mobile connection, that is most of the time between the page's questions and its answers. An
 * answer under COMPRESS_MIN_BYTES goes as it is (a packet either way). A kept answer keeps its compressed
 * copies (answer-cache.ts, counted in its memory budget): the next reader of it costs no compression.
 *
 * Compression runs in Node's thread pool, never on the event loop that serves ingest.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { negotiate } from '@fastify/accept-negotiator';
import type { KeptEncodings } from './kept-answers';

/** Answers shorter than this (characters) are sent as they are. */
export const COMPRESS_MIN_BYTES = 1024;

/** The content codings offered, preferred first when a client accepts both equally. */
const CODINGS = ['br', 'gzip'] as const;
type Coding = (typeof CODINGS)[number];

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

const COMPRESS: Record<Coding, (body: string) => Promise<Buffer>> = {
  // Quality 4: most of brotli's gain at gzip's speed (the all-sites what-if answer: 270 kB → 13 kB in ≈ 3 ms).
  br: (body) =>
    brotli(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 4,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body),
      },
    }),
  gzip: (body) => gz(body, { level: 5 }),
};

/** `vary` with `name` added once (the answer depends on that request header too). */
function withVary(vary: unknown, name: string): string {
  const names = (Array.isArray(vary) ? vary.join(',') : typeof vary === 'string' ? vary : '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return names.some((n) => n.toLowerCase() === name || n === '*') ? names.join(', ') : [...names, name].join(', ');
}

/** Registered after the kept answers' hooks (read.ts): an answer is kept as text, then compressed to send. */
export function installAnswerCompression(app: FastifyInstance, kept: KeptEncodings): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || payload.length < COMPRESS_MIN_BYTES || reply.hasHeader('content-encoding'))
      return payload;
    // Said whether or not this reader gets it compressed: a shared cache must not serve one reader's coding to another.
    reply.header('vary', withVary(reply.getHeader('vary'), 'accept-encoding'));
    const accept = request.headers['accept-encoding'];
    const coding = accept ? (negotiate(accept, [...CODINGS]) as Coding | null) : null;
    if (!coding) return payload;
    let encoded = kept.get(request, payload, coding);
    if (!encoded) {
      encoded = await COMPRESS[coding](payload);
      kept.set(request, payload, coding, encoded);
    }
    reply.header('content-encoding', coding);
    return encoded;
  });
}
