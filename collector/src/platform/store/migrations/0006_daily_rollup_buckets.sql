-- Daily rollup with cheap-to-merge states, replacing 0005's handshakes_daily: the same cuts, keys, counts
-- and mixes (see 0005), other states. A query merges one row per day and group (≈ 1 000–1 600
-- for a month), and in 0005's table each row carried five t-digest states and a HyperLogLog: ≈ 16–18 µs
-- to deserialise and merge each, far above the 20 ms goal (docs/decisions/0004-histogram-rollup.md). Here:
-- - percentiles come from fixed log-scale histogram buckets, a count per bucket (countResample: a state
--   of 274 counters that merges as an element-wise sum). Bucket 0 holds values below 0.1 ms, bucket i ≥ 1
--   holds [0.1 · 1.05^(i−1), 0.1 · 1.05^i) ms; percentiles within 2.47 % of quantileExact. The layout,
--   the error bound and the percentile SQL live in queries/histogram.ts, which a test ties to this file.
-- - distinct clients are uniqUpTo(99): exact up to 99, "100 or more" beyond (a few bytes per row once
--   past 99). They decide small-cell suppression (MIN_CLIENTS_PER_CELL, 20 by default; a threshold above
--   100 reads the raw table: queries/sources.ts), and the API marks a capped count (`clientsCapped`).
-- A new name rather than 0005's: every statement stays idempotent (0005's CREATE … IF NOT EXISTS run again
-- cannot meet a table of another shape under its name, and running this file again drops nothing new).
-- The migration runner fills the new table from the stored rows with the view's own SELECT
-- (store/migrate.ts, `backfill`).
DROP VIEW IF EXISTS handshakes_daily_mv;
DROP TABLE IF EXISTS handshakes_daily;
CREATE TABLE IF NOT EXISTS handshakes_per_day
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
    clients            AggregateFunction(uniqUpTo(99), String),
    mix_handshakeClass SimpleAggregateFunction(sumMap, Map(String, UInt64)),
    mix_protocol       SimpleAggregateFunction(sumMap, Map(String, UInt64)),
    mix_tlsVersion     SimpleAggregateFunction(sumMap, Map(String, UInt64)),
    mix_mode           SimpleAggregateFunction(sumMap, Map(String, UInt64)),
    dns_buckets        AggregateFunction(countResample(0, 274, 1), UInt16),
    tcp_buckets        AggregateFunction(countResample(0, 274, 1), UInt16),
    tls_buckets        AggregateFunction(countResample(0, 274, 1), UInt16),
    connect_buckets    AggregateFunction(countResample(0, 274, 1), UInt16),
    ttfb_buckets       AggregateFunction(countResample(0, 274, 1), UInt16)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (cut, site, day, country, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_per_day_mv TO handshakes_per_day AS
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
    uniqUpToState(99)(clientToken) AS clients,
    sumMap(map(handshakeClass, toUInt64(1))) AS mix_handshakeClass,
    sumMap(map(protocol, toUInt64(1))) AS mix_protocol,
    sumMap(map(tlsVersion, toUInt64(1))) AS mix_tlsVersion,
    sumMap(map(multiIf(handshakeClass = '0rtt', '0-RTT', resumed = 'true', 'resumed', resumed = 'false', 'full', 'unknown'), toUInt64(1))) AS mix_mode,
    countResampleState(0, 274, 1)(if(dns < 0.1, 0, least(273, toUInt16(1 + floor(log(dns / 0.1) / log(1.05)))))) AS dns_buckets,
    countResampleState(0, 274, 1)(if(tcp < 0.1, 0, least(273, toUInt16(1 + floor(log(tcp / 0.1) / log(1.05)))))) AS tcp_buckets,
    countResampleState(0, 274, 1)(if(tls < 0.1, 0, least(273, toUInt16(1 + floor(log(tls / 0.1) / log(1.05)))))) AS tls_buckets,
    countResampleState(0, 274, 1)(if(connect < 0.1, 0, least(273, toUInt16(1 + floor(log(connect / 0.1) / log(1.05)))))) AS connect_buckets,
    countResampleState(0, 274, 1)(if(ttfb < 0.1, 0, least(273, toUInt16(1 + floor(log(ttfb / 0.1) / log(1.05)))))) AS ttfb_buckets
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
