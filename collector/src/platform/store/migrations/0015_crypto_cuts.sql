-- The crypto rollup (0009) one crypto column at a time: per site and for every site together, by
-- key-exchange group alone, certificate key alone, chain length alone and cipher alone (the other three
-- columns ''). The Cryptography panel asks for one of them per chart, and its cells then read a few rows a
-- day instead of 0009's every combination of the four: at ten million records a month, a chart's query read
-- 0009 in 1.4-2.8 s. 0009 stays for the queries that combine crypto columns.
-- The same rows, states and normalised values as 0009 (plausible, not `capped`); `cut` is grouping() over
-- (site, kxGroup, certKey, chainLength, cipherSuite), a bit set for each column aggregated away
-- (queries/sources.ts derives it). The columns are in the order of the view's SELECT: the migration
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
ORDER BY (cut, site, day, kxGroup, certKey, chainLength, cipherSuite);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_crypto_cuts_mv TO handshakes_crypto_cuts AS
SELECT
    grouping(site, kxGroup, certKey, chainLength, cipherSuite) AS cut,
    site,
    day,
    kxGroup,
    certKey,
    chainLength,
    cipherSuite,
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
    (site, day, kxGroup),
    (day, kxGroup),
    (site, day, certKey),
    (day, certKey),
    (site, day, chainLength),
    (day, chainLength),
    (site, day, cipherSuite),
    (day, cipherSuite)
);
