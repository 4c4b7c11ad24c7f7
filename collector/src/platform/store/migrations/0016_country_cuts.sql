-- Country with the columns of a browser, source or evidence filter, and the columns a handshake cell's mixes
-- come from: per site and for every site together, by country × browser × source, country × version evidence
-- and country × crypto facts' source, each with protocol, TLS version, resumption and class. A handshake
-- cell's protection splits it by those four (queries/cells.ts, jointMixCells); for the map under a browser,
-- source or evidence filter, and a comparison of countries by browser, source or evidence, no daily cut held
-- the split, so it read the raw table: 1-4 s per chart at ten million records a month.
-- The same rows and values as the daily cuts (0011) and the hourly grain (0013) (plausible, not `capped`);
-- percentiles in the same log-scale buckets, kept sparse like 0013's. `cut` is grouping() over (site,
-- browser, source, versionEvidence, cryptoSource), a bit set for each column aggregated away
-- (queries/sources.ts derives it); country and the four mix columns are in every cut. The columns are in
-- the order of the view's SELECT: the migration runner's backfill inserts it by position, filling this table
-- from the records already stored. Within a cut, the filter columns come first in the sort key. The count
-- maps compress with ZSTD: 40 % fewer bytes on disk than the default LZ4 at ten million records.
CREATE TABLE IF NOT EXISTS handshakes_country_cuts
(
    cut                UInt8,
    site               LowCardinality(String),
    day                DateTime('UTC'),
    browser            LowCardinality(String),
    source             LowCardinality(String),
    versionEvidence    LowCardinality(String),
    cryptoSource       LowCardinality(String),
    country            LowCardinality(String),
    protocol           LowCardinality(String),
    tlsVersion         LowCardinality(String),
    resumed            LowCardinality(String),
    handshakeClass     LowCardinality(String),
    records            SimpleAggregateFunction(sum, UInt64),
    evidenced          SimpleAggregateFunction(sum, UInt64),
    inferred           SimpleAggregateFunction(sum, UInt64),
    clients            AggregateFunction(uniqUpTo(99), String),
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
PARTITION BY toYYYYMM(day)
ORDER BY (cut, site, browser, source, versionEvidence, cryptoSource, country, day, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_country_cuts_mv TO handshakes_country_cuts AS
SELECT
    grouping(site, browser, source, versionEvidence, cryptoSource) AS cut,
    site,
    day,
    browser,
    source,
    versionEvidence,
    cryptoSource,
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
    sumMap(map(if(dns < 0.1, 0, least(273, toUInt16(1 + floor(log(dns / 0.1) / log(1.05))))), toUInt64(1))) AS dns_hist,
    sumMap(map(if(tcp < 0.1, 0, least(273, toUInt16(1 + floor(log(tcp / 0.1) / log(1.05))))), toUInt64(1))) AS tcp_hist,
    sumMap(map(if(tls < 0.1, 0, least(273, toUInt16(1 + floor(log(tls / 0.1) / log(1.05))))), toUInt64(1))) AS tls_hist,
    sumMap(map(if(connect < 0.1, 0, least(273, toUInt16(1 + floor(log(connect / 0.1) / log(1.05))))), toUInt64(1))) AS connect_hist,
    sumMap(map(if(ttfb < 0.1, 0, least(273, toUInt16(1 + floor(log(ttfb / 0.1) / log(1.05))))), toUInt64(1))) AS ttfb_hist
FROM
(
    SELECT
        site,
        toStartOfDay(ts, 'UTC') AS day,
        browser,
        source,
        tlsVersionSource AS versionEvidence,
        if(cryptoSource = '', 'none', cryptoSource) AS cryptoSource,
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
    WHERE implausible = 0 AND capped = 0
)
GROUP BY GROUPING SETS (
    (site, day, country, browser, source, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, browser, source, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, cryptoSource, protocol, tlsVersion, resumed, handshakeClass)
);
