-- The crypto rollup (0009) one crypto column at a time, with the columns a handshake cell's mixes come
-- from: per site and for every site together, by key-exchange group alone, certificate key alone, chain
-- length alone and cipher alone (the other three columns ''), each with protocol, TLS version, resumption
-- and class, like the hourly grain (0013). A Cryptography chart asks for one crypto dimension, and its cell
-- protection splits every cell by the four mix columns (queries/cells.ts, jointMixCells): no cut of 0009
-- holds them, so that split read the raw table, 1.1-2.8 s per chart at ten million records a month.
-- 0009 stays for the queries that combine crypto columns.
-- The same rows and normalised values as 0009 (plausible, not `capped`); percentiles in the same log-scale
-- buckets, kept sparse like 0013's (a map of bucket index to count per phase, merged by sumMap). `cut` is
-- grouping() over (site, kxGroup, certKey, chainLength, cipherSuite), a bit set for each column aggregated
-- away (queries/sources.ts derives it). The columns are in the order of the view's SELECT: the migration
-- runner's backfill inserts it by position, filling this table from the records already stored.
CREATE TABLE IF NOT EXISTS handshakes_crypto_cuts
(
    cut                UInt8,
    site               LowCardinality(String),
    day                DateTime('UTC'),
    kxGroup            LowCardinality(String),
    certKey            LowCardinality(String),
    chainLength        LowCardinality(String),
    cipherSuite        LowCardinality(String),
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
    dns_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)),
    tcp_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)),
    tls_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)),
    connect_hist       SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)),
    ttfb_hist          SimpleAggregateFunction(sumMap, Map(UInt16, UInt64))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (cut, site, day, kxGroup, certKey, chainLength, cipherSuite, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_crypto_cuts_mv TO handshakes_crypto_cuts AS
SELECT
    grouping(site, kxGroup, certKey, chainLength, cipherSuite) AS cut,
    site,
    day,
    kxGroup,
    certKey,
    chainLength,
    cipherSuite,
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
        if(keyExchangeGroup = '', 'unknown', keyExchangeGroup) AS kxGroup,
        -- assumeNotNull: the branches never give NULL, but their type is Nullable, and a grouping set
        -- without the column would fill it with NULL instead of ''.
        assumeNotNull(multiIf(certKeyType = '', 'unknown', certKeyType = 'rsa', if(certKeyBits IS NULL, 'RSA', concat('RSA-', toString(certKeyBits))), certKeyType = 'ecdsa', if(certKeyBits IS NULL, 'ECDSA', concat('ECDSA-P', toString(certKeyBits))), certKeyType = 'ed25519', 'Ed25519', 'other')) AS certKey,
        assumeNotNull(multiIf(certChainLength IS NULL, 'unknown', certChainLength >= 5, '5+', toString(certChainLength))) AS chainLength,
        if(cipher = '', 'unknown', cipher) AS cipherSuite,
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
    (site, day, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (day, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (day, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (day, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (day, cipherSuite, protocol, tlsVersion, resumed, handshakeClass)
);
