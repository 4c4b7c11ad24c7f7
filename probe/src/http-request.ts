/**
 * One real HTTP request on an already established TLS connection, in the protocol ALPN chose (h2 or
 * HTTP/1.1): the time to the first response byte (curl's starttransfer − pretransfer) and the Alt-Svc header.
 */
import { connect as h2Connect, constants as h2 } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { StageError, withTimeout } from './connect';

export interface HttpAnswer {
  status: number;
  ttfb: number;
  altSvc: string | null;
}

const MAX_HEAD_BYTES = 64 * 1024;
const USER_AGENT = 'tlsrum-probe/0.1';

export function httpRequest(socket: TLSSocket, url: URL, timeoutMs: number): Promise<HttpAnswer> {
  return withTimeout(socket.alpnProtocol === 'h2' ? viaH2(socket, url) : viaH1(socket, url), timeoutMs, 'http', () =>
    socket.destroy(),
  );
}

function viaH1(socket: TLSSocket, url: URL): Promise<HttpAnswer> {
  return new Promise((res, rej) => {
    let head = '';
    let t1 = 0;
    socket.on('data', (chunk: Buffer) => {
      if (!head) t1 = performance.now();
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0 && head.length < MAX_HEAD_BYTES) return;
      socket.destroy();
      const lines = head.slice(0, end < 0 ? undefined : end).split('\r\n');
      const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(lines[0] ?? '');
      if (!status)
        return rej(
          new StageError('http', `not an HTTP/1.x response: ${JSON.stringify((lines[0] ?? '').slice(0, 60))}`),
        );
      const altSvc = lines.filter((l) => /^alt-svc:/i.test(l)).map((l) => l.slice(l.indexOf(':') + 1).trim());
      res({ status: Number(status[1]), ttfb: t1 - t0, altSvc: altSvc.length ? altSvc.join(', ') : null });
    });
    socket.once('error', (err: NodeJS.ErrnoException) =>
      rej(new StageError('http', `request failed (${err.code ?? err.message})`)),
    );
    socket.once('end', () => rej(new StageError('http', 'the server closed the connection without an answer')));
    const t0 = performance.now();
    socket.write(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUser-Agent: ${USER_AGENT}\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
    );
  });
}

function viaH2(socket: TLSSocket, url: URL): Promise<HttpAnswer> {
  return new Promise((res, rej) => {
    const session = h2Connect(url.origin, { createConnection: () => socket });
    const fail = (err: NodeJS.ErrnoException) => {
      session.destroy();
      rej(new StageError('http', `h2 request failed (${err.code ?? err.message})`));
    };
    session.once('error', fail);
    const t0 = performance.now();
    const req = session.request({
      [h2.HTTP2_HEADER_PATH]: `${url.pathname}${url.search}`,
      [h2.HTTP2_HEADER_USER_AGENT]: USER_AGENT,
      accept: '*/*',
    });
    req.once('error', fail);
    req.once('response', (headers) => {
      const ttfb = performance.now() - t0;
      const alt = headers['alt-svc'];
      session.destroy();
      res({
        status: Number(headers[h2.HTTP2_HEADER_STATUS]),
        ttfb,
        altSvc: alt === undefined ? null : Array.isArray(alt) ? alt.join(', ') : String(alt),
      });
    });
    req.end();
  });
}
