/**
 * Static pages of the lab. A visit to `https://a.<server>.lab.test:<port>/p/<server>.html` opens exactly
 * one new connection per origin: the page's own (a, also carrying a same-origin image over the same
 * connection), one to b (cross-origin with Timing-Allow-Origin and Server-Timing) and one to c
 * (cross-origin without them). `data:` favicon: the favicon request would open a connection of its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostOf, SERVERS, type ServerId } from './servers';

/** 1×1 transparent GIF. */
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export function pagePath(id: ServerId): string {
  return `/p/${id}.html`;
}

export function writePages(www: string, ports: Record<ServerId, number>): void {
  mkdirSync(join(www, 'p'), { recursive: true });
  mkdirSync(join(www, 'r'), { recursive: true });
  for (const name of ['a.gif', 'b.gif', 'c.gif']) writeFileSync(join(www, 'r', name), GIF);
  writeFileSync(join(www, 'index.html'), '<!doctype html><title>tlsrum lab</title><p>tlsrum lab\n');
  for (const s of SERVERS) {
    const port = ports[s.id];
    const origin = (p: 'b' | 'c') => `https://${hostOf(p, s.id)}:${port}`;
    writeFileSync(
      join(www, 'p', `${s.id}.html`),
      `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>lab ${s.id}</title></head>
<body>
<h1>${s.id}</h1><p>${s.description}</p>
<img src="/r/a.gif" alt="same origin">
<img src="${origin('b')}/r/b.gif" alt="cross-origin with Timing-Allow-Origin">
<img src="${origin('c')}/r/c.gif" alt="cross-origin without Timing-Allow-Origin">
</body></html>
`,
    );
  }
}
