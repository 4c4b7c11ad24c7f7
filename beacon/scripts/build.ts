/** Writes dist/beacon.js and prints its size and the tag to put on the site's pages (with its SRI hash). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildServedScript, MAX_GZIP_BYTES } from '../src/build';

const script = await buildServedScript();
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
mkdirSync(dist, { recursive: true });
writeFileSync(`${dist}beacon.js`, script.code);
console.log(
  `dist/beacon.js: ${Buffer.byteLength(script.code)} bytes, ${script.gzipBytes} bytes gzip (budget ${MAX_GZIP_BYTES})`,
);
console.log(`integrity: ${script.integrity}`);
console.log(
  `tag: <script async src="https://COLLECTOR/beacon.js" data-site="HOSTNAME" integrity="${script.integrity}" crossorigin="anonymous"></script>`,
);
if (script.gzipBytes > MAX_GZIP_BYTES) {
  console.error(`the served script is over its budget of ${MAX_GZIP_BYTES} bytes gzip`);
  process.exitCode = 1;
}
