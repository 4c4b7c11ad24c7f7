-- The version evidence and the crypto facts' source, each alone with the columns a handshake cell's mixes
-- come from: per site and for every site together, by version evidence and by crypto facts' source, each
-- with protocol, TLS version, resumption and class. A comparison by evidence, the dashboard's coverage line
-- and every chart under an evidence filter read whole days; no daily cut held those columns without country,
-- so they read the country cuts (0016): fifty times the rows, 0.2-0.3 s per chart at ten million records a
-- month. The same rows and values as the daily cuts (0011), the hourly grain (0013) and the country cuts
-- (plausible, not `capped`); percentiles in the same log-scale buckets, kept sparse. `cut` is grouping()
-- over (site, versionEvidence, cryptoSource), a bit set for each column aggregated away (queries/sources.ts
-- derives it); the four mix columns are in every cut. The columns are in the order of the view's SELECT:
-- the migration runner's backfill inserts it by position, filling this table from the records already
-- stored. Within a cut, the filter columns come first in the sort key.
CREATE TABLE IF NOT EXISTS handshakes_evidence_cuts
(
    cut                UInt8,
    site               LowCardinality(String),
    day                DateTime('UTC'),
    versionEvidence    LowCardinality(String),
    cryptoSource       LowCardinality(String),
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
ORDER BY (cut, site, versionEvidence, cryptoSource, day, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_evidence_cuts_mv TO handshakes_evidence_cuts AS
SELECT
    grouping(site, versionEvidence, cryptoSource) AS cut,
    site,
    day,
    versionEvidence,
    cryptoSource,
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
        tlsVersionSource AS versionEvidence,
        if(cryptoSource = '', 'none', cryptoSource) AS cryptoSource,
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
    (site, day, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (day, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (day, cryptoSource, protocol, tlsVersion, resumed, handshakeClass)
);
