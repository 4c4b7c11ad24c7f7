-- The hourly grain (0013) sorted by the columns a filter names before the hour: (cut, site, country, browser,
-- source, versionEvidence, cryptoSource, hour, …) instead of (cut, site, hour, country, …). Sorted by the hour
-- first, every granule of a cut held every country (or browser, source, evidence) of its hours, so an hourly
-- series under `country=DE` read the histograms of every country to keep one: at 10 M records over a month, its
-- cells by stack took 463 ms, 198 ms sorted by country first. A cut without those columns ('' in them) keeps its
-- order; a cut with them reads a range of hours per value, which an hourly series split by one of them pays for
-- (by country over a day, 124 → 151 ms at 10 M records). docs/decisions/0009-hourly-grain.md has the figures.
-- A table's sort key cannot be changed in place: the rows are copied into a table sorted the new way, which then
-- takes the grain's name (EXCHANGE TABLES, which the embedded store's database and a server's Atomic one do).
-- Every statement can run again after a crash at any point: the copy is made afresh from the grain, whichever
-- key it has by then. The view is dropped first and re-created last, so that it writes to the grain as it is
-- after the swap: how a view follows its tables across EXCHANGE TABLES has changed between ClickHouse versions.
-- The rows are copied as they are: the same columns, types and codecs, nothing re-aggregated. About 4 s per
-- million records stored on a 2-core machine. Apply it with the collectors stopped, and from one collector only
-- (docs/operations.md, docs/cluster.md). The copy dropped holds the grain's rows (the old table after the swap):
-- its drops lift the size limit a server puts on dropping a table (`max_table_size_to_drop`, 50 GB by default,
-- the grain of some 1.7 billion records at 30 bytes each), which would otherwise stop the upgrade halfway.

DROP VIEW IF EXISTS handshakes_per_hour_mv;

DROP TABLE IF EXISTS handshakes_per_hour_resorted SETTINGS max_table_size_to_drop = 0;

CREATE TABLE handshakes_per_hour_resorted
(
    cut                UInt16,
    site               LowCardinality(String),
    country            LowCardinality(String),
    browser            LowCardinality(String),
    source             LowCardinality(String),
    hour               DateTime('UTC'),
    protocol           LowCardinality(String),
    tlsVersion         LowCardinality(String),
    resumed            LowCardinality(String),
    handshakeClass     LowCardinality(String),
    versionEvidence    LowCardinality(String),
    cryptoSource       LowCardinality(String),
    records            SimpleAggregateFunction(sum, UInt64) CODEC(ZSTD(3)),
    evidenced          SimpleAggregateFunction(sum, UInt64) CODEC(ZSTD(3)),
    inferred           SimpleAggregateFunction(sum, UInt64) CODEC(ZSTD(3)),
    clients            AggregateFunction(uniqUpTo(99), UInt32),
    sites              AggregateFunction(uniqUpTo(99), UInt32),
    mix_handshakeClass SimpleAggregateFunction(sumMap, Map(String, UInt64)) CODEC(ZSTD(3)),
    mix_protocol       SimpleAggregateFunction(sumMap, Map(String, UInt64)) CODEC(ZSTD(3)),
    mix_tlsVersion     SimpleAggregateFunction(sumMap, Map(String, UInt64)) CODEC(ZSTD(3)),
    mix_mode           SimpleAggregateFunction(sumMap, Map(String, UInt64)) CODEC(ZSTD(3)),
    dns_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    tcp_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    tls_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    connect_hist       SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ttfb_hist          SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (cut, site, country, browser, source, versionEvidence, cryptoSource, hour, protocol, tlsVersion, resumed, handshakeClass);

INSERT INTO handshakes_per_hour_resorted SELECT * FROM handshakes_per_hour;

EXCHANGE TABLES handshakes_per_hour AND handshakes_per_hour_resorted;

DROP TABLE handshakes_per_hour_resorted SETTINGS max_table_size_to_drop = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_per_hour_mv TO handshakes_per_hour AS
SELECT
    grouping(site, country, browser, source, hour, protocol, tlsVersion, resumed, handshakeClass, versionEvidence, cryptoSource) AS cut,
    site,
    country,
    browser,
    source,
    hour,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    versionEvidence,
    cryptoSource,
    count() AS records,
    countIf(resumedSource IN ('observed', 'server-timing')) AS evidenced,
    countIf(resumedSource = 'inferred') AS inferred,
    uniqUpToState(99)(toUInt32(cityHash64(clientToken) % 4294967296)) AS clients,
    uniqUpToStateIf(99)(toUInt32(cityHash64(site) % 4294967296), site != '') AS sites,
    CAST(map(), 'Map(String, UInt64)') AS mix_handshakeClass,
    CAST(map(), 'Map(String, UInt64)') AS mix_protocol,
    CAST(map(), 'Map(String, UInt64)') AS mix_tlsVersion,
    CAST(map(), 'Map(String, UInt64)') AS mix_mode,
    sumMap(map(if(dns < 0.1, 0, least(273, toUInt16(1 + floor(log(dns / 0.1) / log(1.05))))), toUInt64(1))) AS dns_hist,
    sumMap(map(if(tcp < 0.1, 0, least(273, toUInt16(1 + floor(log(tcp / 0.1) / log(1.05))))), toUInt64(1))) AS tcp_hist,
    sumMap(map(if(tls < 0.1, 0, least(273, toUInt16(1 + floor(log(tls / 0.1) / log(1.05))))), toUInt64(1))) AS tls_hist,
    sumMap(map(if(connect < 0.1, 0, least(273, toUInt16(1 + floor(log(connect / 0.1) / log(1.05))))), toUInt64(1))) AS connect_hist,
    sumMap(map(if(ttfb < 0.1, 0, least(273, toUInt16(1 + floor(log(ttfb / 0.1) / log(1.05))))), toUInt64(1))) AS ttfb_hist
FROM
(
    SELECT
        site,
        country,
        browser,
        source,
        toStartOfHour(ts, 'UTC') AS hour,
        protocol,
        ifNull(tlsVersion, 'unknown') AS tlsVersion,
        multiIf(resumed IS NULL, 'unknown', resumed, 'true', 'false') AS resumed,
        handshakeClass,
        tlsVersionSource AS versionEvidence,
        if(cryptoSource = '', 'none', cryptoSource) AS cryptoSource,
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
    (site, hour, protocol, tlsVersion, resumed, handshakeClass),
    (site, hour, country, protocol, tlsVersion, resumed, handshakeClass),
    (site, hour, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, hour, browser, source, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (hour, protocol, tlsVersion, resumed, handshakeClass),
    (hour, country, protocol, tlsVersion, resumed, handshakeClass),
    (hour, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (hour, browser, source, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (hour, browser, protocol, tlsVersion, resumed, handshakeClass),
    (hour, source, protocol, tlsVersion, resumed, handshakeClass)
);
