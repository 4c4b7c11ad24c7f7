/**
 * The dataset's README.md, generated with the files: the column table comes from columns.ts, the evidence
 * sources from the record schema's list, the rule and the thresholds from the export's own settings.
 */
import { EVIDENCE_SOURCES, type EvidenceSource } from '@tlsrum/shared';
import { DATASET_COLUMNS, MERGED } from './columns';

/** Per evidence source, its share of the rows' records; null when fewer clients than the threshold had it. */
export interface EvidenceShares {
  tlsVersion: Record<string, number | null>;
  resumed: Record<string, number | null>;
}

export interface ReadmeFacts {
  month: string;
  rows: number;
  records: number;
  files: { parquet: string; csv: string };
  sha256: { parquet: string; csv: string };
  bytes: { parquet: number; csv: number };
  minClients: number;
  clientCap: number;
  evidence: EvidenceShares;
  publisher: string | null;
}

const EVIDENCE_MEANING = {
  observed: 'the browser (Firefox) or the synthetic runner reported it for this connection',
  'server-timing': "the site's own server said so in a `Server-Timing: tls;desc=…` header of the response",
  implied: 'follows with certainty from another observation (HTTP/3 is always TLS 1.3; early data is always resumed)',
  'site-profile': "follows from what the site's servers accept, where its probes and reported records agree",
  inferred: 'a likely reading of the timings or of earlier connections to the site, not a fact',
  unknown: 'nothing told: the value is `unknown`',
} satisfies Record<EvidenceSource, string>;

const percent = (share: number | null | undefined) =>
  share === undefined ? '0 %' : share === null ? 'under the threshold' : `${(share * 100).toFixed(1)} %`;
const cell = (text: string) => text.replaceAll('|', '\\|');

export function datasetReadme(f: ReadmeFacts): string {
  const columns = DATASET_COLUMNS.map((c) => `| \`${c.name}\` | ${c.type} | ${cell(c.description)} |`).join('\n');
  const evidence = EVIDENCE_SOURCES.map(
    (s) =>
      `| \`${s}\` | ${percent(f.evidence.tlsVersion[s])} | ${percent(f.evidence.resumed[s])} | ${EVIDENCE_MEANING[s]} |`,
  ).join('\n');
  const by = f.publisher ? `, published by ${f.publisher}` : '';
  return `# tlsrum open data: TLS handshake latency, ${f.month}

Connection set-up times measured in real browsers during ${f.month} (UTC), by country, browser family,
HTTP protocol, TLS version, handshake mode (full, resumed, 0-RTT) and key exchange (post-quantum hybrid or
classical), for every site the collector saw together${by}. There is no site column and no hostname.

| file | bytes | sha256 |
|---|---|---|
| \`${f.files.parquet}\` | ${f.bytes.parquet} | \`${f.sha256.parquet}\` |
| \`${f.files.csv}\` | ${f.bytes.csv} | \`${f.sha256.csv}\` |

Both files hold the same ${f.rows} rows in the same order (sorted by every key column), ${f.records} connections in
all. The CSV has a header line; the histogram is a bracketed list (\`[0,3,…]\`). Exporting the same month of
the same store again gives byte-identical files.

## Columns

| column | type | meaning |
|---|---|---|
${columns}

## Suppression: what is left out and why no subtraction recovers it

- **Every row holds at least ${f.minClients} distinct clients** (\`DATASET_MIN_CLIENTS\`).
- **Every connection is in at most one row.** A row per country × browser × protocol × TLS version × handshake
  mode × key exchange where that cell reaches the threshold. The connections of the cells that do not are
  merged, in this order, into a row with browser \`${MERGED}\`, else one with key exchange \`${MERGED}\`, else one
  with both \`${MERGED}\` — each merged row holding **only** cells without a row of their own, and published
  only if it reaches the threshold itself. Connections that reach none of these are in no row.
- So any sum or difference of rows — within this month or with other months, which hold other connections —
  is a union of whole rows, each of at least ${f.minClients} clients: no subtraction isolates a smaller group.
  And \`records\` or histogram buckets can be summed over any rows without counting a connection twice.
- How many connections were left out is not given: it would be the month's total minus these rows, the
  count of the small groups together.
- A client token is random and lives one UTC day: \`clients\` counts client-days, so ${f.minClients} of them in a
  month are at least ${Math.ceil(f.minClients / 31)} people, and usually many more (most people browse on
  some days only).

## How the connections were measured and classified

- By the tlsrum browser extension of people who opted in (and by clients speaking its protocol), from the
  browser's Resource and Navigation Timing entries of each **new** connection (reused connections carry no
  handshake and are not counted). No URL, path, address or query string is sent or stored; the collector
  looks the country up from the address and drops the address there.
- Only real users' records (\`source = rum\`): lab and synthetic runs are left out.
- Only **plausible** records: each record is checked against named rules (phases that add up, a class that
  matches the phases, a browser version that exists, a timestamp within the batch's window, at most 20 new
  client tokens per address, site and day); a record failing one is kept out of every figure.
- **Per-client cap:** at most K records of one client token per site and UTC day count (K =
  \`CLIENT_RECORDS_PER_CELL_DAY\`, ${f.clientCap} at this export; 0 means no cap), its first K — one heavy
  client weighs as much as any other.
- The **handshake mode** and **TLS version** come from what the browser can see, which differs by browser:
  Firefox reports the version and the key exchange group; Chromium-family browsers report neither to
  extensions, so their version comes from the site's Server-Timing header, from HTTP/3 (always TLS 1.3),
  from the site's probed profile, or stays unknown; resumption is read from the key exchange (Firefox, TLS
  1.2), the server's header, early data, or inferred from the round trips the TLS phase took.
  The **key exchange** class is the group's (hybrid: an ML-KEM / Kyber hybrid such as X25519MLKEM768),
  known for Firefox and the synthetic runner, and for Chromium-family records of registered sites from
  the site's latest TLS probe; \`unknown\` otherwise.

### Evidence: how this month's rows know their TLS version and resumption

Share of the rows' connections by the source of each fact (a source that fewer than ${f.minClients} clients had
is not given).

| source | TLS version | resumption | meaning |
|---|---|---|---|
${evidence}

## What these numbers are, and are not

- The population is the people who installed the extension and the sites they visited: not a sample of
  any country's internet users. Compare rows with care, and with their \`clients\`.
- \`unknown\` values are not random: they are mostly Chromium-family connections to sites that say nothing
  (see the evidence table). A share of TLS 1.3 computed over known versions only leans to Firefox users.
- Timings are as the browser measured them (0.1 ms resolution in Chromium, 1 ms in Firefox), for the first
  request on the connection.

## Licence

[Creative Commons Attribution 4.0 International (CC BY 4.0)](https://creativecommons.org/licenses/by/4.0/).
Cite as: “tlsrum open data, TLS handshake latency, ${f.month}${by}”.
`;
}
