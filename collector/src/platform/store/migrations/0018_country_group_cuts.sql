-- Country with the key-exchange group, and the columns a handshake cell's mixes come from: per site and for
-- every site together, by country × group with protocol, TLS version, resumption and class. The map under the
-- dashboard's post-quantum filter (or an API group filter) and a comparison of countries by group or by
-- post-quantum use read whole days; the crypto cuts (0015) hold the group without country and the country
-- cuts (0016) country without the group, so they read the raw table: 1.5-4 s per chart at ten million
-- records a month. The other crypto columns with country are not cut: they are API filters only, and each
-- would add rows of its own. The same rows and values as the other cuts (plausible, not `capped`; the group
-- normalised as in 0009 and 0015); percentiles in the same log-scale buckets, kept sparse. `cut` is
-- grouping(site): 0 per site, 1 for every site. The columns are in the order of the view's SELECT: the
-- migration runner's backfill inserts it by position, filling this table from the records already stored.
CREATE TABLE IF NOT EXISTS handshakes_country_group_cuts
(
    cut                UInt8,
    site               LowCardinality(String),
    day                DateTime('UTC'),
    country            LowCardinality(String),
    kxGroup            LowCardinality(String),
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
ORDER BY (cut, site, kxGroup, country, day, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_country_group_cuts_mv TO handshakes_country_group_cuts AS
SELECT
    grouping(site) AS cut,
    site,
    day,
    country,
    kxGroup,
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
        country,
        if(keyExchangeGroup = '', 'unknown', keyExchangeGroup) AS kxGroup,
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
    (site, day, country, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, kxGroup, protocol, tlsVersion, resumed, handshakeClass)
);
