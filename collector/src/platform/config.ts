/**
 * The collector's configuration: every environment variable, once, with its type, default, bounds and
 * meaning (env-schema.ts reads it). It is validated once at start; a bad value stops the process with a
 * message naming the variable, never a silent default. The table in docs/configuration.md is generated
 * from this schema (`pnpm collector config`; test/config.test.ts keeps the two equal).
 */
import { isIP } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type, type StaticDecode } from 'typebox';
import { ALERT_WINDOWS } from '@tlsrum/shared/query';
import { ConfigError, envTable, nullable, parseEnv, type Env } from './env-schema';
import { CLIENT_CAP_ENTRIES } from '../ingest/client-cap';
import { TOKEN_BUDGET_DEFAULTS } from '../ingest/token-budget';
import { DEFAULT_CLIENT_CAP } from '../query/counted';

export { ConfigError };

const int = (env: string, dflt: number, minimum: number, maximum: number, description: string) =>
  Type.Integer({ env, default: dflt, minimum, maximum, description });
const num = (env: string, dflt: number, minimum: number, maximum: number, description: string) =>
  Type.Number({ env, default: dflt, minimum, maximum, description });

function isHttpUrl(s: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
}
const httpUrl = () => Type.Refine(Type.String({ expected: 'an http(s) URL' }), isHttpUrl);
const identifier = (annotations: object = {}) =>
  Type.String({
    pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$',
    expected: 'an identifier ([A-Za-z_][A-Za-z0-9_]*)',
    ...annotations,
  });

const ORIGIN = Type.String({
  pattern: [
    '^chrome-extension://(?:[a-p]{32}|\\*)$',
    '^moz-extension://(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\\*)$',
    '^https?://[a-z0-9.-]+(?::\\d{1,5})?$',
    '^https?://\\[[0-9a-f:]+\\](?::\\d{1,5})?$',
  ].join('|'),
  expected: 'an origin (chrome-extension://ID, moz-extension://UUID or moz-extension://*, http(s)://host[:port])',
});

/** `host:port:address:port` (an IPv6 address in brackets). */
const CONNECT_TO = '^[a-z0-9.-]+:\\d{1,5}:(?:[0-9.]+|\\[[0-9a-f:]+\\]|[a-z0-9.-]+):\\d{1,5}$';

/**
 * The admin token reads every site and registers sites, so it must not be guessable online: at least 128
 * random bits. A string is judged by its alphabet: 32 hex digits, or 22 characters of a larger alphabet
 * (base64url: 6 bits each), with at least 10 different characters (no repeated filler).
 */
export const ADMIN_TOKEN_RULE =
  'at least 128 bits: 32 hex digits or 22 other characters, with at least 10 different characters';
export function strongToken(s: string): boolean {
  const distinct = new Set(s).size;
  return distinct >= 10 && s.length >= (/^[0-9a-fA-F]+$/.test(s) ? 32 : 22);
}

/**
 * TRUST_PROXY: which X-Forwarded-For entry is the client. Never the left-most one — the client writes it —
 * but the one the trusted proxies added: `N` trusts the last N hops, a list trusts those proxy addresses
 * (Fastify's trustProxy takes both: a number, or addresses and CIDR ranges).
 */
const TRUST_PROXY_FORMS =
  'false, the number of proxies in front of the collector (1–10), or a comma-separated list of their addresses or CIDR ranges';
const TRUST_PROXY_DOC =
  "which `X-Forwarded-For` entry is the client address: `false` (the connection's own address), `N` (the address N proxies back: `1` behind one load balancer) or the proxies' addresses / CIDR ranges; `true` is refused (it would trust the left-most entry, which the client writes) ([docs/cluster.md](docs/cluster.md))";
const PROXY_ADDRESS = /^(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)(?:\/[0-9]{1,3})?$/;
function isTrustProxy(s: string): boolean {
  if (s === 'false') return true;
  if (/^[0-9]+$/.test(s)) return Number(s) >= 1 && Number(s) <= 10;
  return s.split(',').every((a) => PROXY_ADDRESS.test(a.trim()) && isIP(a.trim().split('/')[0]!) !== 0);
}
/**
 * Fastify's `trustProxy`: a list of addresses as is; N hops as a function trusting the connection's peer
 * and the N − 1 entries it and the proxies before it added (Fastify's own number form trusts nothing).
 */
function parseTrustProxy(s: string): false | string[] | ((address: string, hop: number) => boolean) {
  if (s === 'false') return false;
  if (/^[0-9]+$/.test(s)) {
    const hops = Number(s);
    return (_address, hop) => hop < hops;
  }
  return s.split(',').map((a) => a.trim());
}

/** A DNS server: IPv4 with an optional port, IPv6 bare or in brackets with an optional port. */
const DNS_SERVER = '^(?:\\d{1,3}(?:\\.\\d{1,3}){3}(?::\\d{1,5})?|\\[[0-9a-fA-F:]+\\](?::\\d{1,5})?|[0-9a-fA-F:]+)$';

/** Also the benchmarks' threshold, so their queries do the suppression work a default collector does. */
export const DEFAULT_MIN_CLIENTS_PER_CELL = 20;
/** A public file lives forever: a higher bar than the live API's cells. */
export const DEFAULT_DATASET_MIN_CLIENTS = 100;

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
const TiB = 1024 ** 4;

export const ConfigSchema = Type.Object({
  host: Type.String({ env: 'HOST', default: '127.0.0.1', description: 'address to listen on' }),
  port: int('PORT', 8787, 0, 65535, 'port to listen on'),
  dataDir: Type.String({
    env: 'DATA_DIR',
    default: './data',
    path: true,
    description: "embedded store's data folder (one collector process per folder); also holds the spool",
  }),
  clickhouse: Type.Decode(
    Type.Object({
      url: nullable(httpUrl(), {
        env: 'CLICKHOUSE_URL',
        description: 'use a ClickHouse server over HTTP(S) instead of the embedded store',
      }),
      username: Type.String({ env: 'CLICKHOUSE_USER', default: 'default', description: 'server user' }),
      password: Type.String({ env: 'CLICKHOUSE_PASSWORD', default: '', trim: false, description: 'server password' }),
      database: identifier({
        env: 'CLICKHOUSE_DATABASE',
        default: 'tlsrum',
        description: 'server database (must exist)',
      }),
      cluster: nullable(identifier(), {
        env: 'CLICKHOUSE_CLUSTER',
        description:
          'cluster name: tables live `ON CLUSTER`, the collector writes to the Distributed tables ([cluster.md](cluster.md)); needs `CLICKHOUSE_URL`',
      }),
    }),
    // Without a server URL the store is embedded and the server settings do not apply.
    (c) => (c.url === null ? null : { ...c, url: c.url }),
  ),
  retentionDays: int('RETENTION_DAYS', 395, 1, 36_500, 'TTL of raw records'),
  flushIntervalMs: int(
    'FLUSH_INTERVAL_MS',
    1000,
    10,
    60_000,
    "longest a record waits in the spool's active segment before its insert",
  ),
  // Each insert pays a fixed cost (mostly the rollup view's aggregation and parts: ≈ 50 ms of CPU at load 20) besides
  // its parsing (≈ 11 µs/row at load 20): 25 000-row inserts cost ≈ 20 % less CPU per row than 10 000-row ones and
  // fill only above 25 000 records/s; the interval still bounds how late a record shows (measured with bench:ingest's profile).
  flushMaxRows: int(
    'FLUSH_MAX_ROWS',
    25_000,
    1,
    100_000,
    'rows per spool segment = per insert (an insert starts as soon as this many wait)',
  ),
  maxBufferedRows: int(
    'MAX_BUFFERED_ROWS',
    500_000,
    1,
    10_000_000,
    'rows in the spool (not yet in the store) before ingest answers 503',
  ),
  spoolDir: Type.String({
    env: 'SPOOL_DIR',
    path: true,
    derive: (read: ReadonlyMap<string, unknown>) => join(read.get('DATA_DIR') as string, 'spool'),
    defaultText: '`$DATA_DIR/spool`',
    description: 'write-ahead spool: accepted batches are fsynced here before the 202',
  }),
  spoolMaxBytes: int(
    'SPOOL_MAX_BYTES',
    512 * MiB,
    64 * KiB,
    TiB,
    'spool size before ingest answers 503 + `Retry-After`',
  ),
  recentBatches: int(
    'RECENT_BATCHES',
    200_000,
    1,
    10_000_000,
    'batch ids remembered (and journaled in the spool folder) to answer resends as duplicates',
  ),
  spoolQuarantineAfterTries: int(
    'SPOOL_QUARANTINE_AFTER_TRIES',
    5,
    1,
    1000,
    'inserts of a spool segment the store refuses for its content (parse or type error, unknown column) before it moves to `$SPOOL_DIR/quarantine/`; outages are retried forever',
  ),
  shutdownDrainMs: int(
    'SHUTDOWN_DRAIN_MS',
    10_000,
    0,
    3_600_000,
    'how long SIGTERM/SIGINT keeps moving the spool into the store before exiting',
  ),
  rateLimitPerMinute: int(
    'RATE_LIMIT_PER_MINUTE',
    600,
    0,
    100_000_000,
    'ingest requests a minute from one client address, then 429 + `Retry-After`; `0` = off',
  ),
  queryRateLimitPerMinute: int(
    'QUERY_RATE_LIMIT_PER_MINUTE',
    300,
    0,
    100_000_000,
    'requests a minute from one client address to the read routes together (`/v1/summary`, `/v1/compare`, …, `/v1/alerts`; a dashboard view asks about ten), then 429 + `Retry-After`; `0` = off ([integrity.md](integrity.md))',
  ),
  maxEventLoopDelayMs: int(
    'MAX_EVENT_LOOP_DELAY_MS',
    1000,
    0,
    600_000,
    'event-loop lag above which requests get 503 + `Retry-After` (health, readiness and metrics excepted); `0` = off',
  ),
  maxHeapUsedBytes: int(
    'MAX_HEAP_USED_BYTES',
    0,
    0,
    TiB,
    'V8 heap use above which requests get 503 + `Retry-After`; `0` = off',
  ),
  requestTimeoutMs: int(
    'REQUEST_TIMEOUT_MS',
    30_000,
    500,
    600_000,
    'a request must arrive whole within this time (its headers within 10 s): slow-loris senders are cut off',
  ),
  queryConcurrency: int(
    'QUERY_CONCURRENCY',
    2,
    1,
    64,
    "read queries the store runs at once (each on its own client); more wait in a queue. Heavy ones (the raw table, the what-if's connections) hold all slots but one. On the embedded store each running query holds one of Node's four I/O threads, which the spool also needs",
  ),
  queryQueueMax: int(
    'QUERY_QUEUE_MAX',
    64,
    0,
    100_000,
    'read queries waiting for a free slot, heavy ones (the raw table, the what-if\'s connections) at most half of them; beyond that, reads get 503 + `Retry-After` ("busy, retry in N s") while ingest goes on',
  ),
  queryTimeoutMs: int(
    'QUERY_TIMEOUT_MS',
    20_000,
    1000,
    600_000,
    'time limit of one read query in the store (ClickHouse `max_execution_time`, whole seconds); a read that waited twice this long for a free slot is refused as busy (503 + `Retry-After`)',
  ),
  queryMaxMemoryBytes: int(
    'QUERY_MAX_MEMORY_BYTES',
    2 * GiB,
    0,
    TiB,
    "memory limit of one read query in the store (ClickHouse `max_memory_usage`); `0` = the store's own",
  ),
  compactClosedMonths: Type.Boolean({
    env: 'COMPACT_CLOSED_MONTHS',
    default: true,
    description:
      "merge the closed months of each rollup and of the what-if's client sample into one part (checked hourly, as background work; a month is closed two days after it ends): a query then reads a few granules of it, not some of each of its parts. Embedded store and single server; a cluster's shards merge on their own ([cluster.md](cluster.md))",
  }),
  answerCacheSeconds: int(
    'ANSWER_CACHE_SECONDS',
    60,
    0,
    3600,
    "how long an answer of the dashboard's read routes (`/v1/compare`, `/v1/timeseries`, `/v1/map`, `/v1/phases`, `/v1/whatif`) is kept and served again to a reader of the same scope and question: fresh for this long, then stale (`ANSWER_STALE_SECONDS`); `0` = off",
  ),
  answerStaleSeconds: int(
    'ANSWER_STALE_SECONDS',
    60,
    0,
    3600,
    'after `ANSWER_CACHE_SECONDS`, how long a kept answer is still served at once while the collector works out a fresh one behind it (stale-while-revalidate): the next viewer of a view in use never waits for the store, and figures are at most the two together old; `0` = off',
  ),
  answerCacheBytes: int(
    'ANSWER_CACHE_BYTES',
    64 * MiB,
    0,
    TiB,
    'memory the kept answers may hold; the oldest go first',
  ),
  closedBucketCacheBytes: int(
    'CLOSED_BUCKET_CACHE_BYTES',
    64 * MiB,
    0,
    TiB,
    "memory a time series' closed buckets may hold once worked out (`/v1/timeseries` from the rollups: an hour or day that ended two days ago gets no more records, so its cells are kept and a series reads only the buckets it lacks and the open ones; each kept at most an hour); the oldest go first; `0` = off",
  ),
  corsOrigins: Type.Array(ORIGIN, {
    env: 'CORS_ORIGINS',
    default: [],
    description:
      'origins allowed cross-origin: the extension (`moz-extension://*` since Firefox add-on UUIDs are random per install) or a dashboard served elsewhere',
  }),
  bodyLimitBytes: int('BODY_LIMIT_BYTES', 256 * KiB, KiB, 16 * MiB, 'request body as sent'),
  inflatedLimitBytes: int(
    'INFLATED_LIMIT_BYTES',
    MiB,
    KiB,
    64 * MiB,
    'request body after gunzip (at least `BODY_LIMIT_BYTES`)',
  ),
  geoipDb: nullable(Type.String(), {
    env: 'GEOIP_DB',
    path: true,
    defaultText: 'bundled geo-whois-asn-country',
    description: 'an MMDB file with `country_code` records',
  }),
  geoipOverrides: nullable(Type.String(), {
    env: 'GEOIP_OVERRIDES',
    path: true,
    description: 'file of `CIDR CC` lines checked first (labs map 127.0.0.N to countries)',
  }),
  adminToken: nullable(Type.Refine(Type.String({ expected: ADMIN_TOKEN_RULE }), strongToken), {
    env: 'ADMIN_TOKEN',
    description: `enables site registration and every site's data; ${ADMIN_TOKEN_RULE} (\`openssl rand -hex 16\` or \`openssl rand -base64 24\`)`,
  }),
  tokenFailuresPerHour: int(
    'TOKEN_FAILURES_PER_HOUR',
    20,
    0,
    1_000_000,
    'wrong bearer tokens (admin or read) one client address may send in an hour, then 429 + `Retry-After` for every token from it until the hour is over; `0` = no limit',
  ),
  minSitesPerCell: int(
    'MIN_SITES_PER_CELL',
    2,
    1,
    1000,
    "without a token, a cell holding records of a registered site must hold records of at least this many registered sites, else it is suppressed: no public answer reproduces one site's own figures ([docs/integrity.md](docs/integrity.md)); `1` = off",
  ),
  minClientsPerCell: int(
    'MIN_CLIENTS_PER_CELL',
    DEFAULT_MIN_CLIENTS_PER_CELL,
    1,
    1_000_000,
    'small-cell suppression threshold (distinct clients)',
  ),
  clientRecordsPerCellDay: int(
    'CLIENT_RECORDS_PER_CELL_DAY',
    DEFAULT_CLIENT_CAP,
    0,
    1_000_000,
    'records of one client token a figure counts per cell and UTC day at most: in figures of whole days (and the rollups) the first K of its day on each site, marked as they arrive (a change applies to records from then on); in hourly cells and alert windows K per cell, at read time ([integrity.md](integrity.md)); `0` = no cap',
  ),
  clientCapKeys: int(
    'CLIENT_CAP_KEYS',
    CLIENT_CAP_ENTRIES,
    1,
    100_000_000,
    '(client token, UTC day, site) counts the per-client cap keeps in memory, as many again for those that reached K: a key under K is forgotten least recently seen first (its client may count K again); a key at K is kept while its day is open; flagged records take none ([docs/integrity.md](docs/integrity.md))',
  ),
  tokensPerAddress: int(
    'TOKENS_PER_ADDRESS',
    TOKEN_BUDGET_DEFAULTS.perAddress,
    0,
    1_000_000,
    'new client tokens one address (IPv6: one /64) may introduce per site and UTC day; the records of further tokens are stored flagged and left out of figures; `0` = no limit',
  ),
  tokenBudgetEntries: int(
    'TOKEN_BUDGET_ENTRIES',
    TOKEN_BUDGET_DEFAULTS.maxEntries,
    1,
    10_000_000,
    '(address, site) pairs the tokens-per-address check remembers (in memory, keyed hashes only); the least recently seen is forgotten first',
  ),
  trustProxy: Type.Decode(
    Type.Refine(
      Type.String({ env: 'TRUST_PROXY', default: 'false', expected: TRUST_PROXY_FORMS, description: TRUST_PROXY_DOC }),
      isTrustProxy,
    ),
    parseTrustProxy,
  ),
  maxConnections: int(
    'MAX_CONNECTIONS',
    10_000,
    0,
    1_000_000,
    'open connections the collector accepts at once (further ones are closed at once); `0` = no cap. Behind a proxy, cap connections per client address there ([docs/cluster.md](docs/cluster.md))',
  ),
  maxRequestsPerSocket: int(
    'MAX_REQUESTS_PER_SOCKET',
    1000,
    0,
    1_000_000,
    'requests one keep-alive connection may carry before the collector closes it; `0` = no limit',
  ),
  logLevel: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    env: 'LOG_LEVEL',
    default: 'info',
    description:
      'pino level; logs never contain client addresses or query strings. `debug` also logs each read query: its wait for a slot, its time in the store and its SQL (not its parameters)',
  }),
  dashboardDir: Type.String({
    env: 'DASHBOARD_DIR',
    path: true,
    default: fileURLToPath(new URL('../../../dashboard/dist', import.meta.url)),
    defaultText: '`dashboard/dist`',
    description: 'the built dashboard served at `/`',
  }),
  // Who runs this collector: `GET /v1/about`, which the extension shows before anyone consents.
  about: Type.Object({
    operator: nullable(
      Type.String({
        maxLength: 200,
        pattern: '^[^\\u0000-\\u001f<>]+$',
        expected: 'plain text of at most 200 characters (no control characters, < or >)',
      }),
      {
        env: 'OPERATOR_NAME',
        description: 'who runs this collector (person or organisation), shown to users before they consent',
      },
    ),
    contact: nullable(
      Type.Refine(
        Type.String({ maxLength: 500, expected: 'an e-mail address or an http(s) URL' }),
        (s) => /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(s) || isHttpUrl(s),
      ),
      {
        env: 'OPERATOR_CONTACT',
        description: "how to reach the operator (e-mail address or URL), shown with the operator's name",
      },
    ),
    privacyPolicyUrl: nullable(httpUrl(), {
      env: 'PRIVACY_POLICY_URL',
      description: "the operator's privacy policy, shown before consent",
    }),
  }),
  alerts: Type.Object({
    intervalMs: int('ALERT_INTERVAL_MS', 300_000, 0, 86_400_000, 'how often the regression checks run (`0` = never)'),
    windows: Type.Decode(
      Type.Array(Type.Enum([...ALERT_WINDOWS]), {
        env: 'ALERT_WINDOWS',
        default: [...ALERT_WINDOWS],
        minItems: 1,
        description: 'windows compared with the same window a week earlier',
      }),
      (windows) => [...new Set(windows)],
    ),
    thresholds: Type.Object({
      alpha: num('ALERT_ALPHA', 1e-4, 1e-12, 0.5, 'significance level of each one-sided test'),
      minSamples: int(
        'ALERT_MIN_SAMPLES',
        200,
        1,
        1e9,
        "records (in the check's denominator) each window needs before a check says anything",
      ),
      minClients: Type.Integer({
        env: 'ALERT_MIN_CLIENTS',
        minimum: 1,
        maximum: 1e9,
        derive: (read: ReadonlyMap<string, unknown>) => read.get('MIN_CLIENTS_PER_CELL'),
        defaultText: '`MIN_CLIENTS_PER_CELL`',
        description:
          'distinct clients each window needs before a check says anything (at least `MIN_CLIENTS_PER_CELL`; a window under it shows `samples` null)',
      }),
      shareDrop: num('ALERT_SHARE_DROP', 0.1, 0, 1, 'effect size of a share drop, in absolute terms (0.1 = 10 points)'),
      p75Rise: num('ALERT_P75_RISE', 0.2, 0, 100, 'effect size of a p75 rise, relative (0.2 = +20 %)'),
    }),
    source: Type.Decode(
      Type.Enum(['rum', 'page', 'synthetic', 'any'], {
        env: 'ALERT_SOURCE',
        default: 'rum',
        description:
          "records compared: rum the extension's, page the site beacons' (synthetic runs come in bursts a week apart)",
      }),
      (source) => (source === 'any' ? null : source),
    ),
    webhookUrl: nullable(httpUrl(), {
      env: 'ALERT_WEBHOOK_URL',
      description: 'POST each firing/resolved event as JSON here',
    }),
    webhookRetries: int(
      'ALERT_WEBHOOK_RETRIES',
      5,
      0,
      20,
      'webhook attempts after the first failure, with exponential backoff from 1 s',
    ),
    webhookTimeoutMs: int('ALERT_WEBHOOK_TIMEOUT_MS', 5000, 100, 60_000, 'timeout of each webhook attempt'),
  }),
  // The monthly open dataset (collector/src/datasets/, docs/dataset.md).
  datasets: Type.Object({
    dir: Type.String({
      env: 'DATASETS_DIR',
      path: true,
      derive: (read: ReadonlyMap<string, unknown>) => join(read.get('DATA_DIR') as string, 'datasets'),
      defaultText: '`$DATA_DIR/datasets`',
      description: 'folder of the published monthly datasets (one `YYYY-MM/` folder each), served at `/v1/datasets`',
    }),
    minClients: int(
      'DATASET_MIN_CLIENTS',
      DEFAULT_DATASET_MIN_CLIENTS,
      1,
      1_000_000,
      'distinct clients every row of a monthly dataset holds at least (at least `MIN_CLIENTS_PER_CELL`; [docs/integrity.md](docs/integrity.md))',
    ),
    monthlyExport: Type.Boolean({
      env: 'DATASET_MONTHLY_EXPORT',
      default: true,
      description:
        'write the last month into `DATASETS_DIR` once it is over (checked hourly; a month is over 24 h after its last day)',
    }),
  }),
  probe: Type.Object({
    intervalMs: int(
      'PROBE_INTERVAL_MS',
      3_600_000,
      0,
      7 * 86_400_000,
      "how often every registered site's TLS configuration is probed ([probe.md](probe.md)); `0` = never",
    ),
    jitter: num(
      'PROBE_JITTER',
      0.1,
      0,
      1,
      'each cycle starts up to this fraction of the interval early or late (collectors started together do not probe at once)',
    ),
    concurrency: int('PROBE_CONCURRENCY', 2, 1, 64, 'probes running at once'),
    timeoutMs: int(
      'PROBE_TIMEOUT_MS',
      10_000,
      100,
      120_000,
      'timeout of each phase (lookup, connect, handshake, request) of a probe connection',
    ),
    runs: int('PROBE_RUNS', 3, 1, 20, 'cold runs per probe; the phases stored are their medians'),
    retentionDays: int('PROBE_RETENTION_DAYS', 395, 1, 36_500, 'TTL of the probe history (`site_probes`)'),
    caFile: nullable(Type.String(), {
      env: 'PROBE_CA_FILE',
      path: true,
      description: 'PEM file of extra CA certificates probes and ownership checks trust (sites with a private CA)',
    }),
    connectTo: Type.Array(Type.String({ pattern: CONNECT_TO, expected: 'HOST:PORT:ADDRESS:PORT' }), {
      env: 'PROBE_CONNECT_TO',
      default: [],
      description:
        "like curl's `--connect-to`: probe `https://HOST:PORT/` at ADDRESS:PORT instead (one backend behind a load balancer; a staging address); SNI and Host stay HOST. Also the explicit allow-list of the connection guard: a HOST:443 entry is connected at its ADDRESS even when that is not a public address (probes and ownership checks; [self-service.md](self-service.md))",
    }),
  }),
  dnsServers: Type.Array(
    Type.String({
      pattern: DNS_SERVER,
      expected: 'an IP address with an optional port (1.2.3.4, 1.2.3.4:53, [::1]:53)',
    }),
    {
      env: 'DNS_SERVERS',
      default: [],
      description:
        "DNS servers asked for the addresses of the sites probed and checked, and for ownership TXT records; empty = the system's resolver",
    },
  ),
  claims: Type.Object({
    selfService: Type.Boolean({
      env: 'SELF_SERVICE',
      default: true,
      description:
        'site owners register their own site by proving they control it ([self-service.md](self-service.md)); `false` leaves registration to the admin routes',
    }),
    perAddressPerHour: int(
      'CLAIM_RATE_LIMIT_PER_HOUR',
      10,
      1,
      100_000,
      'claims and verification attempts together one client address (IPv6: one /64) may make an hour, then 429 + `Retry-After`',
    ),
    ttlHours: int('CLAIM_TTL_HOURS', 72, 1, 720, 'how long a claim waits for its proof before it expires'),
    maxPending: int(
      'CLAIMS_MAX_PENDING',
      10_000,
      1,
      10_000_000,
      'unexpired, unproven claims held at once (all hostnames); beyond, new claims get 503 + `Retry-After`',
    ),
    checkTimeoutMs: int(
      'CLAIM_CHECK_TIMEOUT_MS',
      10_000,
      100,
      120_000,
      'an ownership check (lookup, connection and answer together) gives up after this time',
    ),
    recheckIntervalMs: int(
      'CLAIM_RECHECK_INTERVAL_MS',
      86_400_000,
      0,
      30 * 86_400_000,
      'how often the ownership of self-registered sites is checked again; `0` = never',
    ),
    revokeAfterDays: int(
      'CLAIM_REVOKE_AFTER_DAYS',
      7,
      1,
      365,
      "days of failed re-checks after which a self-registered site's read token is revoked and the site unregistered",
    ),
  }),
});

export type Config = StaticDecode<typeof ConfigSchema>;

/** Rules between variables, checked after each one was read on its own. */
const RULES: ((c: Config) => string | null)[] = [
  (c) => (c.inflatedLimitBytes < c.bodyLimitBytes ? 'INFLATED_LIMIT_BYTES must be at least BODY_LIMIT_BYTES' : null),
  // A check's figures would otherwise show a window the query API suppresses as a small cell.
  (c) =>
    c.alerts.thresholds.minClients < c.minClientsPerCell
      ? 'ALERT_MIN_CLIENTS must be at least MIN_CLIENTS_PER_CELL'
      : null,
  // A dataset row under the live API's threshold would publish, for good, a cell the API suppresses.
  (c) =>
    c.datasets.minClients < c.minClientsPerCell ? 'DATASET_MIN_CLIENTS must be at least MIN_CLIENTS_PER_CELL' : null,
];

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  // Checked on the variables: once parsed, the server settings of an embedded store are gone.
  if (env.CLICKHOUSE_CLUSTER?.trim() && !env.CLICKHOUSE_URL?.trim()) {
    throw new ConfigError(
      'CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL (a cluster is a set of servers, not the embedded store)',
    );
  }
  if (env.TRUST_PROXY?.trim() === 'true') {
    throw new ConfigError(
      'TRUST_PROXY=true is refused: it would take the left-most X-Forwarded-For entry, which any client can write. Set the number of proxies in front of the collector (TRUST_PROXY=1 behind one load balancer) or their addresses (TRUST_PROXY=10.0.0.0/8)',
    );
  }
  const config = parseEnv(ConfigSchema, env, cwd);
  for (const rule of RULES) {
    const wrong = rule(config);
    if (wrong) throw new ConfigError(wrong);
  }
  return config;
}

/** What start-up says about the admin routes (site registration, every site's data). */
export function adminRoutesNotice(config: Pick<Config, 'adminToken' | 'tokenFailuresPerHour'>): string {
  if (!config.adminToken)
    return 'admin routes disabled (no ADMIN_TOKEN): sites cannot be registered; the public routes answer for every site together';
  const limit =
    config.tokenFailuresPerHour > 0
      ? `${config.tokenFailuresPerHour} wrong tokens an hour per address, then 429`
      : 'no limit on wrong tokens (TOKEN_FAILURES_PER_HOUR=0)';
  return `admin routes enabled (ADMIN_TOKEN set): site registration and every site's data; ${limit}`;
}

/** The table of docs/configuration.md. */
export const configTable = (): string => envTable(ConfigSchema);
