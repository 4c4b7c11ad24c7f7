/**
 * The ingest ceiling: a bare node:http server that reads the whole body and answers 202, doing nothing
 * else. The collector's throughput is reported as a ratio of this one's, measured in the same run.
 */
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200).end('ok');
    return;
  }
  let bytes = 0;
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => {
    res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: 20, bytes }));
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
