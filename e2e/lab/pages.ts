/**
 * Static pages of the lab. A visit to `https://a.<server>.lab.test:<port>/p/<server>.html` opens exactly
 * one new connection per origin: the page's own (a, also carrying a same-origin image over the same
 * connection), one to b (cross-origin with Timing-Allow-Origin and Server-Timing) and one to c
 * (cross-origin without them). `data:` favicon: the favicon request would open a connection of its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beaconTag } from './beacon-front';
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
  for (const s of SERVERS) writeFileSync(join(www, 'p', `${s.id}.html`), labPage(s.id, ports[s.id]));
}

/** A lab page; `head`: more markup for its head (the beacon tag). */
export function labPage(id: ServerId, port: number, head = ''): string {
  const s = SERVERS.find((x) => x.id === id)!;
  const origin = (p: 'b' | 'c') => `https://${hostOf(p, s.id)}:${port}`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>lab ${s.id}</title>${head}</head>
<body>
<h1>${s.id}</h1><p>${s.description}</p>
<img src="/r/a.gif" alt="same origin">
<img src="${origin('b')}/r/b.gif" alt="cross-origin with Timing-Allow-Origin">
<img src="${origin('c')}/r/c.gif" alt="cross-origin without Timing-Allow-Origin">
</body></html>
`;
}

/**
 * The lab pages with the site beacon's tag (site: the page's host `a.`; extra hostname: `b.`), one copy
 * per visitor (its tag names its own front, beacon-front.ts): `/p/<server>.v<visitor>.html`.
 */
export function writeBeaconPages(
  www: string,
  ports: Record<ServerId, number>,
  servers: readonly ServerId[],
  frontOrigins: readonly string[],
): void {
  for (const id of servers)
    frontOrigins.forEach((front, v) =>
      writeFileSync(
        join(www, 'p', `${id}.v${v}.html`),
        labPage(id, ports[id], `\n${beaconTag(front, hostOf('a', id), [hostOf('b', id)])}`),
      ),
    );
}

export function beaconPagePath(id: ServerId, visitor: number): string {
  return `/p/${id}.v${visitor}.html`;
}
