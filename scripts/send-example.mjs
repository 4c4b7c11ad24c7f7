#!/usr/bin/env node
// Sends shared/examples/batch.json to a collector, gzip-compressed, with its timestamps moved to now
// (the collector refuses records more than 24 h from its clock) and a fresh batchId.
// Usage: node scripts/send-example.mjs [http://127.0.0.1:8787]
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';

const base = process.argv[2] ?? `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? 8787}`;
const batch = JSON.parse(readFileSync(new URL('../shared/examples/batch.json', import.meta.url), 'utf8'));
const now = Date.now();
batch.batchId = randomUUID();
batch.sentAt = now;
batch.records.forEach((r, i) => (r.ts = now - i * 1000));
const res = await fetch(`${base}/v1/handshakes`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  body: gzipSync(JSON.stringify(batch)),
});
console.log(res.status, await res.text());
process.exit(res.ok ? 0 : 1);
