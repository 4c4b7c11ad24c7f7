import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

/** A loopback port free for TCP (and, when asked, UDP too) right now. */
export async function freePort(udpToo = false): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((res, rej) => {
      const s = createServer();
      s.once('error', rej);
      s.listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => res(typeof a === 'object' && a ? a.port : 0));
      });
    });
    if (!udpToo) return port;
    const ok = await new Promise<boolean>((res) => {
      const u = createSocket('udp4');
      u.once('error', () => res(false));
      u.bind(port, '127.0.0.1', () => u.close(() => res(true)));
    });
    if (ok) return port;
  }
  throw new Error('no free port found');
}
