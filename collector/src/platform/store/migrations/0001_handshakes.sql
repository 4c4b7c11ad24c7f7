-- One row per new TLS connection. Column names follow the record fields (shared/README.md).
-- site '' = not a registered site; country 'ZZ' = unknown. Optional strings are '' when absent
-- (cheaper than Nullable for LowCardinality columns).
CREATE TABLE IF NOT EXISTS handshakes
(
    ts               DateTime64(3, 'UTC') CODEC(Delta, ZSTD),
    receivedAt       DateTime('UTC') CODEC(Delta, ZSTD),
    batchId          UUID,
    site             LowCardinality(String),
    country          LowCardinality(String),
    entryType        LowCardinality(String),
    protocol         LowCardinality(String),
    transport        LowCardinality(String),
    tlsVersion       LowCardinality(Nullable(String)),
    tlsVersionSource LowCardinality(String),
    resumed          Nullable(Bool),
    resumedSource    LowCardinality(String),
    handshakeClass   LowCardinality(String),
    dns              Float32,
    tcp              Float32,
    tls              Float32,
    connect          Float32,
    ttfb             Float32,
    cipher           LowCardinality(String),
    keyExchangeGroup LowCardinality(String),
    signatureScheme  LowCardinality(String),
    certChainLength  Nullable(UInt8),
    browser          LowCardinality(String),
    browserMajor     UInt16,
    os               LowCardinality(String),
    effectiveType    LowCardinality(String),
    rttHint          Nullable(UInt16),
    source           LowCardinality(String),
    agentName        LowCardinality(String),
    agentVersion     LowCardinality(String),
    clientToken      String CODEC(ZSTD)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
-- Per-site time-range queries read a contiguous range; country next keeps regional scans cheap.
ORDER BY (site, toStartOfHour(ts), country)
-- Inserts carry insert_deduplication_token (derived from batch ids): a replayed insert is stored once.
SETTINGS non_replicated_deduplication_window = 10000;
