-- The certificate's signature scheme alone with the columns a handshake cell's mixes come from: per site
-- and for every site together, by signature scheme with protocol, TLS version, resumption and class. No cut
-- held the scheme, so a comparison by it, or any chart under a signature filter, read the raw table: 0.6-2 s
-- per chart at ten million records a month. The same rows as every rollup (plausible, not `capped`);
-- percentiles in the same log-scale buckets, kept sparse; distinct clients as 4-byte hashes (0020). `cut`
-- is grouping(site): 0 per site, 1 for every site. The columns are in the order of the view's SELECT: the
-- migration runner's backfill inserts it by position, filling this table from the records already stored.
CREATE TABLE IF NOT EXISTS handshakes_signature_cuts
(
    cut                UInt8,
    site               LowCardinality(String),
    day                DateTime('UTC'),
    sigScheme          LowCardinality(String),
    protocol           LowCardinality(String),
    tlsVersion         LowCardinality(String),
    resumed            LowCardinality(String),
    handshakeClass     LowCardinality(String),
    records            SimpleAggregateFunction(sum, UInt64),
    evidenced          SimpleAggregateFunction(sum, UInt64),
    inferred           SimpleAggregateFunction(sum, UInt64),
    clients            AggregateFunction(uniqUpTo(99), UInt32),
    dns_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    tcp_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    tls_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    connect_hist       SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ttfb_hist          SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (cut, site, sigScheme, day, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_signature_cuts_mv TO handshakes_signature_cuts AS
SELECT
    grouping(site) AS cut,
    site,
    day,
    sigScheme,
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
        toStartOfDay(ts, 'UTC') AS day,
        if(signatureScheme = '', 'unknown', signatureScheme) AS sigScheme,
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
    (site, day, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (day, sigScheme, protocol, tlsVersion, resumed, handshakeClass)
);
