-- Daily rollup, replacing the hourly rollup of 0003. That one keyed every dimension the API filters by at
-- the hour, so it held almost a row per record (3.85 M rows for 10 M records): reading it cost nearly what
-- the raw table does, and filling it cost more than storing the records. This table keeps four coarse
-- cuts of each day instead, one per grouping set, a few thousand rows a month each:
--   cut 2 = (site, day, protocol, tlsVersion, resumed, handshakeClass)  per site, by stack and mode
--   cut 1 = (site, day, country)                                        per site, by country
--   cut 6 = (day, protocol, tlsVersion, resumed, handshakeClass)        every site together, by stack and mode
--   cut 5 = (day, country)                                              every site together, by country
-- `cut` is grouping(site, country, protocol): a bit is 1 where that column was aggregated away (and holds
-- its default, ''). A query reads exactly one cut (queries/sources.ts); one that needs another dimension
-- (browser, source, country with stack) or hourly buckets reads the raw table. Hour-grain cuts were tried:
-- per site and country they have nearly as many rows as records again, and filling them through the view
-- took 50 µs per record (2 M records generated through that view in 107 s, 3.9 s without it).
-- The shares the API reports (mixes) are kept as count maps so that a cut without those dimensions still
-- answers them. Distinct clients use uniqCombined64(12): exact up to a few hundred (where suppression
-- decides), a fixed ~3 KiB HyperLogLog beyond — cheap to merge, unlike a `uniq` state that grows with the
-- number of clients. The rows of a store that existed before this migration are copied in by the
-- migration runner (store/migrate.ts back-fills every new view's target from the rows already stored).
DROP VIEW IF EXISTS handshakes_hourly_mv;
DROP TABLE IF EXISTS handshakes_hourly;
CREATE TABLE IF NOT EXISTS handshakes_daily
(
    cut                UInt8,
    site               LowCardinality(String),
    day                DateTime('UTC'),
    country            LowCardinality(String),
    protocol           LowCardinality(String),
    tlsVersion         LowCardinality(String),
    resumed            LowCardinality(String),
    handshakeClass     LowCardinality(String),
    records            SimpleAggregateFunction(sum, UInt64),
    evidenced          SimpleAggregateFunction(sum, UInt64),
    inferred           SimpleAggregateFunction(sum, UInt64),
    clients            AggregateFunction(uniqCombined64(12), String),
    mix_handshakeClass SimpleAggregateFunction(sumMap, Map(String, UInt64)),
    mix_protocol       SimpleAggregateFunction(sumMap, Map(String, UInt64)),
    mix_tlsVersion     SimpleAggregateFunction(sumMap, Map(String, UInt64)),
    mix_mode           SimpleAggregateFunction(sumMap, Map(String, UInt64)),
    dns                AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32),
    tcp                AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32),
    tls                AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32),
    connect            AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32),
    ttfb               AggregateFunction(quantilesTDigest(0.5, 0.75, 0.95), Float32)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (cut, site, day, country, protocol, tlsVersion, resumed, handshakeClass);

-- Optional values are normalised to 'unknown', so the cuts answer the `rollup` dimension expressions
-- (queries/dimensions.ts).
CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_daily_mv TO handshakes_daily AS
SELECT
    grouping(site, country, protocol) AS cut,
    site,
    day,
    country,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    count() AS records,
    countIf(resumedSource IN ('observed', 'server-timing')) AS evidenced,
    countIf(resumedSource = 'inferred') AS inferred,
    uniqCombined64State(12)(clientToken) AS clients,
    sumMap(map(handshakeClass, toUInt64(1))) AS mix_handshakeClass,
    sumMap(map(protocol, toUInt64(1))) AS mix_protocol,
    sumMap(map(tlsVersion, toUInt64(1))) AS mix_tlsVersion,
    sumMap(map(multiIf(handshakeClass = '0rtt', '0-RTT', resumed = 'true', 'resumed', resumed = 'false', 'full', 'unknown'), toUInt64(1))) AS mix_mode,
    quantilesTDigestState(0.5, 0.75, 0.95)(dns) AS dns,
    quantilesTDigestState(0.5, 0.75, 0.95)(tcp) AS tcp,
    quantilesTDigestState(0.5, 0.75, 0.95)(tls) AS tls,
    quantilesTDigestState(0.5, 0.75, 0.95)(connect) AS connect,
    quantilesTDigestState(0.5, 0.75, 0.95)(ttfb) AS ttfb
FROM
(
    SELECT
        site,
        toStartOfDay(ts, 'UTC') AS day,
        country,
        protocol,
        ifNull(tlsVersion, 'unknown') AS tlsVersion,
        multiIf(resumed IS NULL, 'unknown', resumed, 'true', 'false') AS resumed,
        handshakeClass,
        resumedSource,
        clientToken,
        dns,
        tcp,
        tls,
        connect,
        ttfb
    FROM handshakes
)
GROUP BY GROUPING SETS (
    (site, day, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country),
    (day, protocol, tlsVersion, resumed, handshakeClass),
    (day, country)
);
