import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

// The kernel may hand the same port to two listen(0) calls made one after the other (the first was
// closed again): a lab asking for many ports would then give two servers one port.
const handedOut = new Set<number>();

/** A loopback port free for TCP (and, when asked, UDP too) right now, never one this process got before. */
export async function freePort(udpToo = false): Promise<number> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const port = await new Promise<number>((res, rej) => {
      const s = createServer();
      s.once('error', rej);
      s.listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => res(typeof a === 'object' && a ? a.port : 0));
      });
    });
    if (handedOut.has(port)) continue;
    if (!udpToo) return (handedOut.add(port), port);
    const ok = await new Promise<boolean>((res) => {
      const u = createSocket('udp4');
      u.once('error', () => res(false));
      u.bind(port, '127.0.0.1', () => u.close(() => res(true)));
    });
    if (ok) return (handedOut.add(port), port);
  }
  throw new Error('no free port found');
}
