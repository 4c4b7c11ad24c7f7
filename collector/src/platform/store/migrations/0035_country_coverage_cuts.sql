-- Country with the browser and the crypto facts' source, with the columns a handshake cell's mixes come from, per
-- day and per site, sorted by country first: the coverage line (the browser by the crypto facts' source) under a
-- country filter, as when a country is picked on the map. No cut held the three together, so it read the raw
-- table, about 2 s a chart at 10 M records. A grouping set of the country cuts (0016) would have held the same
-- rows, but sorted there by browser and crypto source before country, one country's rows lie in some rows of
-- every granule a site's cut spans: reading those took twice the time of this table's.
-- No rows of every site together: every site's figures sum the sites' rows (histograms and counts add up, and
-- merging the sites' distinct-client states counts each client once), which an answer without a token reads
-- anyway for the k-sites count; such rows would add half as many again.
-- The same rows and normalised values as the country cuts (plausible, not `capped`); percentiles in the same
-- log-scale buckets, kept sparse; counts and buckets with T64 (0031); distinct clients as 4-byte hashes (0020).
-- `cut` is grouping(site), 0 (query/sources.ts derives it). The columns are in the order of the view's SELECT: the
-- migration runner's backfill inserts it by position, filling this table from the records already stored (days
-- whose raw records have expired stay empty here).
CREATE TABLE IF NOT EXISTS handshakes_country_coverage_cuts
(
    cut                UInt8,
    site               LowCardinality(String),
    country            LowCardinality(String),
    browser            LowCardinality(String),
    cryptoSource       LowCardinality(String),
    day                DateTime('UTC'),
    protocol           LowCardinality(String),
    tlsVersion         LowCardinality(String),
    resumed            LowCardinality(String),
    handshakeClass     LowCardinality(String),
    records            SimpleAggregateFunction(sum, UInt64) CODEC(T64, ZSTD(3)),
    evidenced          SimpleAggregateFunction(sum, UInt64) CODEC(T64, ZSTD(3)),
    inferred           SimpleAggregateFunction(sum, UInt64) CODEC(T64, ZSTD(3)),
    clients            AggregateFunction(uniqUpTo(99), UInt32),
    dns_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(3)),
    tcp_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(3)),
    tls_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(3)),
    connect_hist       SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(3)),
    ttfb_hist          SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(3))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (cut, site, country, browser, cryptoSource, day, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_country_coverage_cuts_mv TO handshakes_country_coverage_cuts AS
SELECT
    grouping(site) AS cut,
    site,
    country,
    browser,
    cryptoSource,
    day,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    count() AS records,
    countIf(resumedSource IN ('observed', 'server-timing')) AS evidenced,
    countIf(resumedSource = 'inferred') AS inferred,
    uniqUpToState(99)(toUInt32(cityHash64(clientToken) % 4294967296)) AS clients,
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
        if(cryptoSource = '', 'none', cryptoSource) AS cryptoSource,
        toStartOfDay(ts, 'UTC') AS day,
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
    (site, country, browser, cryptoSource, day, protocol, tlsVersion, resumed, handshakeClass)
);
