-- The what-if's client sample kept apart: every record of the clients whose token hashes into the first
-- sixteenth of the hash range, in a table sorted by site and that hash. The what-if models a sample of whole
-- clients (whatif/query.ts): a client is in when cityHash64(clientToken) / 2^64 is at most the range's share
-- (about 1.25 × its limit / the range's connections). From the raw table, finding them means hashing every
-- token of the range: a read of every record stored in it, whatever the limit. For a share of a sixteenth
-- or less, those clients are all in this table, first within each site by its sort key: the read follows the
-- limit, not the records stored. The rows are the raw table's own (implausible and capped ones too), so the
-- what-if's SQL is the same over either table and gives the same connections.
-- The columns are the ones the what-if reads and filters on; `clientSample` is the hash itself, so a share
-- bounds a range of the sort key. Its TTL follows RETENTION_DAYS like the raw table's (platform/store/migrate.ts).
-- The columns are in the order of the view's SELECT: the migration runner's backfill inserts it by position,
-- filling this table from the records already stored.
CREATE TABLE IF NOT EXISTS handshakes_client_sample
(
    clientSample     UInt64,
    ts               DateTime64(3, 'UTC') CODEC(ZSTD(1)),
    site             LowCardinality(String),
    clientToken      String CODEC(ZSTD(1)),
    country          LowCardinality(String) CODEC(ZSTD(1)),
    source           LowCardinality(String) CODEC(ZSTD(1)),
    browser          LowCardinality(String) CODEC(ZSTD(1)),
    transport        LowCardinality(String) CODEC(ZSTD(1)),
    tlsVersion       LowCardinality(Nullable(String)) CODEC(ZSTD(1)),
    tlsVersionSource LowCardinality(String) CODEC(ZSTD(1)),
    resumed          Nullable(Bool) CODEC(ZSTD(1)),
    handshakeClass   LowCardinality(String) CODEC(ZSTD(1)),
    dns              Float32 CODEC(ZSTD(1)),
    tcp              Float32 CODEC(ZSTD(1)),
    tls              Float32 CODEC(ZSTD(1)),
    connect          Float32 CODEC(ZSTD(1)),
    ttfb             Float32 CODEC(ZSTD(1)),
    cipher           LowCardinality(String) CODEC(ZSTD(1)),
    keyExchangeGroup LowCardinality(String) CODEC(ZSTD(1)),
    signatureScheme  LowCardinality(String) CODEC(ZSTD(1)),
    certKeyType      LowCardinality(String) CODEC(ZSTD(1)),
    certKeyBits      Nullable(UInt16) CODEC(ZSTD(1)),
    certChainLength  Nullable(UInt8) CODEC(ZSTD(1)),
    certChainBytes   Nullable(UInt32) CODEC(ZSTD(1)),
    ocspStapled      Nullable(Bool) CODEC(ZSTD(1)),
    implausible      UInt8 CODEC(ZSTD(1)),
    capped           UInt8 CODEC(ZSTD(1))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (site, clientSample, ts);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_client_sample_mv TO handshakes_client_sample AS
SELECT
    cityHash64(clientToken) AS clientSample,
    ts,
    site,
    clientToken,
    country,
    source,
    browser,
    transport,
    tlsVersion,
    tlsVersionSource,
    resumed,
    handshakeClass,
    dns,
    tcp,
    tls,
    connect,
    ttfb,
    cipher,
    keyExchangeGroup,
    signatureScheme,
    certKeyType,
    certKeyBits,
    certChainLength,
    certChainBytes,
    ocspStapled,
    implausible,
    capped
FROM handshakes
WHERE clientToken != '' AND cityHash64(clientToken) / 18446744073709551616.0 <= 0.0625;
