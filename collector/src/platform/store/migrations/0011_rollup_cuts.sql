-- The daily rollup with more cuts (so that every query shape of the dashboard and the API is answered from
-- a rollup), replacing 0006/0007's handshakes_per_day. Same states (histogram buckets, uniqUpTo(99),
-- mix maps: see 0006), same rows counted (plausible and not `capped`: see 0007). New:
-- - `browser` and `source` columns and an `hour` column, so a browser or source filter (or dimension), an
--   hourly time series and country with the stack columns have a cut instead of the raw table;
-- - `cut` is grouping() over every key column: a bit set per column aggregated away, in the argument
--   order below. queries/sources.ts declares each cut by its columns and derives the same number, and a
--   test checks every declared cut against the raw table.
-- Every cut exists twice: per site, and for every site together (no site column: fewer rows to merge).
-- Within a cut, columns a query filters on come first in the sort key, so a filter reads a range: browser
-- and source (few values) before country, so the map's browser filter reads its browser's rows only.
-- The columns are in the order of the view's SELECT: the migration runner's backfill inserts it by position.
-- `day` is set in every cut (an hourly cut's day is its hour's): ranges are whole days in every cut.
-- A new dimension column gets a column here and a place in some grouping sets (a new migration
-- re-creating the view), and one line in queries/dimensions.ts naming its column; sources.ts then picks
-- the cuts that hold it.
DROP VIEW IF EXISTS handshakes_per_day_mv;
DROP TABLE IF EXISTS handshakes_per_day;
CREATE TABLE IF NOT EXISTS handshakes_cuts
(
    cut                UInt16,
    site               LowCardinality(String),
    country            LowCardinality(String),
    browser            LowCardinality(String),
    source             LowCardinality(String),
    day                DateTime('UTC'),
    hour               DateTime('UTC'),
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
ORDER BY (cut, site, browser, source, country, day, hour, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_cuts_mv TO handshakes_cuts AS
SELECT
    grouping(site, country, browser, source, hour, protocol, tlsVersion, resumed, handshakeClass) AS cut,
    site,
    country,
    browser,
    source,
    day,
    hour,
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
        country,
        browser,
        source,
        toStartOfDay(ts, 'UTC') AS day,
        toStartOfHour(ts, 'UTC') AS hour,
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
    WHERE implausible = 0 AND capped = 0
)
GROUP BY GROUPING SETS (
    (site, day, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country),
    (site, day, browser, source, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country, browser, source),
    (site, day, country, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country, protocol, tlsVersion),
    (site, day, country, resumed, handshakeClass),
    (site, day, hour),
    (site, day, hour, protocol, tlsVersion),
    (day, protocol, tlsVersion, resumed, handshakeClass),
    (day, country),
    (day, browser, source, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, browser, source),
    (day, country, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, protocol, tlsVersion),
    (day, country, resumed, handshakeClass),
    (day, hour),
    (day, hour, protocol, tlsVersion)
);
