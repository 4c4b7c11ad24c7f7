/**
 * The network between simulated site visitors and the collector: one HTTPS front per visitor at
 * `https://rum.lab.test:<port>` (the lab certificate covers it), each a trusted reverse proxy that
 * forwards every request to the collector's plain HTTP port with `X-Forwarded-For: <the visitor's
 * address>` — what a load balancer in front of a collector started with `TRUST_PROXY=1` does. A page
 * a visitor views carries the beacon tag of that visitor's front, so the collector derives one client
 * identity per visitor, as it would for visitors behind distinct addresses.
 *
 * Each front also keeps the beacon bodies it forwarded (the entries name their hostnames, which the
 * stored records do not): the lab joins records to connections with them.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';

export const BEACON_FRONT_HOST = 'rum.lab.test';

export interface CapturedBeacon {
  visitor: number;
  /** When the front received it, epoch ms. */
  at: number;
  /** The collector's answer (0: not forwarded), and its body when it refused the beacon. */
  status: number;
  refusal?: string;
  /** The request headers the collector reads the browser from. */
  headers: Pick<IncomingHttpHeaders, 'user-agent' | 'sec-ch-ua' | 'sec-ch-ua-platform' | 'origin'>;
  body: string;
}

export interface BeaconFronts {
  /** Per visitor: the origin its pages' tag loads the beacon from. */
  origins: string[];
  addresses: readonly string[];
  captured: CapturedBeacon[];
  /** false: bodies are kept and answered 202 here, the collector never sees them (a window replayed later). */
  forward: boolean;
  close(): Promise<void>;
}

export interface BeaconFrontOptions {
  /** The collector's plain HTTP origin, e.g. http://127.0.0.1:4318. */
  collector: string;
  /** One client address per visitor (documentation ranges: they route nowhere). */
  addresses: readonly string[];
  cert: string;
  key: string;
  /** Local addresses each front listens on (a browser that resolves every name to a relay reaches it there too). */
  listen?: readonly string[];
}

/** `count` client addresses from the documentation ranges, alternating IPv4 and IPv6 (each in its own /64). */
export function visitorAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 ? `2001:db8:${(i >> 1).toString(16)}::1` : `198.51.100.${(i >> 1) + 1}`,
  );
}

export async function startBeaconFronts(o: BeaconFrontOptions): Promise<BeaconFronts> {
  const target = new URL(o.collector);
  const listen = o.listen?.length ? o.listen : ['127.0.0.1'];
  const tls = { cert: readFileSync(o.cert), key: readFileSync(o.key) };
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const fronts: BeaconFronts = {
    origins: [],
    addresses: o.addresses,
    captured: [],
    forward: true,
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
  for (let visitor = 0; visitor < o.addresses.length; visitor++) {
    let port = 0;
    for (const address of listen) {
      const server = createServer(tls, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks);
          const beacon = req.method === 'POST' && req.url?.split('?')[0] === '/v1/beacon';
          const keep = (status: number, refusal?: string) =>
            beacon &&
            fronts.captured.push({
              visitor,
              at: Date.now(),
              status,
              ...(refusal ? { refusal } : {}),
              headers: {
                'user-agent': req.headers['user-agent'],
                'sec-ch-ua': req.headers['sec-ch-ua'],
                'sec-ch-ua-platform': req.headers['sec-ch-ua-platform'],
                origin: req.headers.origin,
              },
              body: body.toString('utf8'),
            });
          if (beacon && !fronts.forward) {
            keep(0);
            res.writeHead(202).end();
            return;
          }
          const headers = { ...req.headers, 'x-forwarded-for': o.addresses[visitor]!, host: target.host };
          const up = httpRequest(
            { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
            (answer) => {
              const parts: Buffer[] = [];
              answer.on('data', (c: Buffer) => parts.push(c));
              answer.on('end', () => {
                const text = Buffer.concat(parts);
                const status = answer.statusCode ?? 0;
                keep(status, status === 202 ? undefined : text.toString('utf8').slice(0, 300));
                res.writeHead(status || 502, answer.headers).end(text);
              });
            },
          );
          up.on('error', () => res.writeHead(502).end());
          up.end(body);
        });
      });
      server.on('connection', (s: Socket) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, address, () => resolve());
      });
      port = (server.address() as { port: number }).port;
      servers.push(server);
    }
    fronts.origins.push(`https://${BEACON_FRONT_HOST}:${port}`);
  }
  return fronts;
}

/** The tag a site's page carries, as the docs give it. */
export function beaconTag(origin: string, site: string, hosts: readonly string[] = []): string {
  const extra = hosts.length ? ` data-hosts="${hosts.join(' ')}"` : '';
  return `<script async src="${origin}/beacon.js" data-site="${site}"${extra}></script>`;
}
