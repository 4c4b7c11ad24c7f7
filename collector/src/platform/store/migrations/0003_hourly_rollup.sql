-- Hourly rollup for long-range queries: one row per (site, hour, dimensions) with mergeable states.
-- Dimensions are the ones the query API groups or filters by (queries/dimensions.ts); optional values
-- are normalised to 'unknown' here so both tables answer the same SQL expressions.
CREATE TABLE IF NOT EXISTS handshakes_hourly
(
    site           LowCardinality(String),
    hour           DateTime('UTC'),
    country        LowCardinality(String),
    protocol       LowCardinality(String),
    tlsVersion     LowCardinality(String),
    resumed        LowCardinality(String),
    handshakeClass LowCardinality(String),
    browser        LowCardinality(String),
    source         LowCardinality(String),
    records        SimpleAggregateFunction(sum, UInt64),
    -- Records whose resumption is known from evidence (observed or server-timing) vs inferred from timings.
    evidenced      SimpleAggregateFunction(sum, UInt64),
    inferred       SimpleAggregateFunction(sum, UInt64),
    clients        AggregateFunction(uniq, String),
    dns            AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32),
    tcp            AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32),
    tls            AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32),
    connect        AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32),
    ttfb           AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (site, hour, country, protocol, tlsVersion, resumed, handshakeClass, browser, source);

-- Fills the rollup from every insert into handshakes. Inserts carrying a deduplication token that the
-- source table drops as a replay are not pushed to the view either, so the rollup counts a batch once.
CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_hourly_mv TO handshakes_hourly AS
SELECT
    site,
    toStartOfHour(ts) AS hour,
    country,
    protocol,
    ifNull(tlsVersion, 'unknown') AS tlsVersion,
    multiIf(resumed IS NULL, 'unknown', resumed, 'true', 'false') AS resumed,
    handshakeClass,
    browser,
    source,
    count() AS records,
    countIf(resumedSource IN ('observed', 'server-timing')) AS evidenced,
    countIf(resumedSource = 'inferred') AS inferred,
    uniqState(clientToken) AS clients,
    quantilesTDigestState(0.5, 0.75, 0.95)(dns) AS dns,
    quantilesTDigestState(0.5, 0.75, 0.95)(tcp) AS tcp,
    quantilesTDigestState(0.5, 0.75, 0.95)(tls) AS tls,
    quantilesTDigestState(0.5, 0.75, 0.95)(connect) AS connect,
    quantilesTDigestState(0.5, 0.75, 0.95)(ttfb) AS ttfb
FROM handshakes
GROUP BY site, hour, country, protocol, tlsVersion, resumed, handshakeClass, browser, source;

-- Rows stored before the view existed, copied only while the rollup is still empty so that running
-- this again (a crash before the migration was recorded) adds nothing. Migrations finish before the
-- ingest pipeline inserts anything (it waits for the store to be ready), so no row is counted twice.
INSERT INTO handshakes_hourly
SELECT
    site,
    toStartOfHour(ts) AS hour,
    country,
    protocol,
    ifNull(tlsVersion, 'unknown') AS tlsVersion,
    multiIf(resumed IS NULL, 'unknown', resumed, 'true', 'false') AS resumed,
    handshakeClass,
    browser,
    source,
    count() AS records,
    countIf(resumedSource IN ('observed', 'server-timing')) AS evidenced,
    countIf(resumedSource = 'inferred') AS inferred,
    uniqState(clientToken) AS clients,
    quantilesTDigestState(0.5, 0.75, 0.95)(dns) AS dns,
    quantilesTDigestState(0.5, 0.75, 0.95)(tcp) AS tcp,
    quantilesTDigestState(0.5, 0.75, 0.95)(tls) AS tls,
    quantilesTDigestState(0.5, 0.75, 0.95)(connect) AS connect,
    quantilesTDigestState(0.5, 0.75, 0.95)(ttfb) AS ttfb
FROM handshakes
WHERE (SELECT count() FROM handshakes_hourly) = 0
GROUP BY site, hour, country, protocol, tlsVersion, resumed, handshakeClass, browser, source;
