/** The wire-size bench. What it measures, how to run it and its settings: its entry in lib/catalogue.ts (shown in BENCHMARKS.md). */
import { gzipSync } from 'node:zlib';
import type { HandshakeRecord } from '@tlsrum/shared';
import { makeBenchBatch, rng } from './lib/records';
import { printResult, printTable, round } from './lib/report';

const SIZES = [10, 50, 200];
const SAMPLES = 200; // batches per size, averaged

/** What a naive beacon would send for the same connection: the whole timing entry, URL included. */
function rawEntry(rec: HandshakeRecord, i: number) {
  const start = 1000 + i * 37.3;
  const connectStart = start + rec.dns;
  return {
    name: `https://${rec.site ?? 'cdn.example.net'}/assets/app.${i.toString(16)}.js?v=20261122`,
    entryType: 'resource',
    startTime: start,
    duration: rec.connect + rec.ttfb + 12.5,
    initiatorType: 'script',
    nextHopProtocol: rec.protocol,
    workerStart: 0,
    redirectStart: 0,
    redirectEnd: 0,
    fetchStart: start,
    domainLookupStart: start,
    domainLookupEnd: connectStart,
    connectStart,
    secureConnectionStart: connectStart + rec.tcp,
    connectEnd: connectStart + rec.connect,
    requestStart: connectStart + rec.connect + 0.3,
    responseStart: connectStart + rec.connect + 0.3 + rec.ttfb,
    responseEnd: connectStart + rec.connect + rec.ttfb + 12.8,
    transferSize: 24_310,
    encodedBodySize: 24_010,
    decodedBodySize: 81_220,
    responseStatus: 200,
    renderBlockingStatus: 'non-blocking',
    serverTiming: [],
  };
}

function main() {
  const r = rng(11);
  const rows: Array<Record<string, string | number>> = [];
  const figures: Record<number, { plain: number; gzip: number; rawPlain: number; rawGzip: number }> = {};
  for (const size of SIZES) {
    let plain = 0,
      gzip = 0,
      rawPlain = 0,
      rawGzip = 0;
    for (let s = 0; s < SAMPLES; s++) {
      const batch = makeBenchBatch(r, size);
      const json = JSON.stringify(batch);
      plain += Buffer.byteLength(json);
      gzip += gzipSync(json).length;
      const raw = JSON.stringify(batch.records.map(rawEntry));
      rawPlain += Buffer.byteLength(raw);
      rawGzip += gzipSync(raw).length;
    }
    const per = (bytes: number) => bytes / SAMPLES / size;
    figures[size] = { plain: per(plain), gzip: per(gzip), rawPlain: per(rawPlain), rawGzip: per(rawGzip) };
    rows.push({
      'records/batch': size,
      'record JSON B/rec': round(per(plain), 1),
      'record gzip B/rec': round(per(gzip), 1),
      'gzip/plain': round(gzip / plain, 3),
      'raw entries JSON B/rec': round(per(rawPlain), 1),
      'raw entries gzip B/rec': round(per(rawGzip), 1),
      'record gzip / raw gzip': round(gzip / rawGzip, 3),
    });
  }
  printTable(`wire size (mean over ${SAMPLES} batches per size; gzip level 6 as CompressionStream)`, rows);
  const at50 = figures[50]!;
  console.log(
    `\ngzip at 50: ${round(at50.gzip, 1)} B/record (goal ≤ 40); ratio to plain JSON ${round(at50.gzip / at50.plain, 3)}`,
  );
  printResult({
    bench: 'wire-size',
    bytesPerRecordGzip50: round(at50.gzip, 1),
    bytesPerRecordPlain50: round(at50.plain, 1),
    ratio: round(at50.gzip / at50.plain, 3),
    bytesPerRecordGzip10: round(figures[10]!.gzip, 1),
    bytesPerRecordGzip200: round(figures[200]!.gzip, 1),
    rawEntriesGzip50: round(at50.rawGzip, 1),
  });
}

main();
