-- Country with one crypto column other than the key-exchange group, for every site together: by country with
-- the certificate key alone, the chain length alone, the cipher alone and the signature scheme alone (the
-- other three ''), each with protocol, TLS version, resumption and class, per day. The group has its own cut
-- with country (0018); the other four did not, so the map under a certificate key, chain length, cipher or
-- signature filter, and countries compared by one of them, read the raw table: 0.75-2.7 s per chart over a
-- month of ten million records, and more the more is stored. One crypto column per grouping set, as the other
-- crypto cuts: a day of one holds its countries × a few values × the mix combinations.
-- Not per site, as the hourly crypto cuts (0028): one site's such figures read its rows of the range in the raw
-- table, which is sorted by site and hour. Its `site` is always '' (every site together), as in the other
-- rollups' rows of every site: a cluster shards the tables that have one (platform/store/cluster.ts), and this
-- one is filled on each shard from that shard's records.
-- The same rows and normalised values as the other crypto cuts (plausible, not `capped`); percentiles in the
-- same log-scale buckets, kept sparse; distinct clients as 4-byte hashes (0020); the registered sites behind
-- each row (0024), which the k-sites rule of answers without a token counts. `cut` is grouping() over
-- (certKey, chainLength, cipherSuite, sigScheme), a bit set for each column aggregated away (query/sources.ts
-- derives it). Sorted by the crypto value before the country and the day: a filter on one value reads that
-- value's rows only.
-- The columns are in the order of the view's SELECT: the migration runner's backfill inserts it by position,
-- filling this table from the records already stored (days whose raw records have expired stay empty here).
CREATE TABLE IF NOT EXISTS handshakes_country_crypto_cuts
(
    cut                UInt8,
    site               LowCardinality(String),
    certKey            LowCardinality(String),
    chainLength        LowCardinality(String),
    cipherSuite        LowCardinality(String),
    sigScheme          LowCardinality(String),
    country            LowCardinality(String),
    day                DateTime('UTC'),
    protocol           LowCardinality(String),
    tlsVersion         LowCardinality(String),
    resumed            LowCardinality(String),
    handshakeClass     LowCardinality(String),
    records            SimpleAggregateFunction(sum, UInt64) CODEC(ZSTD(3)),
    evidenced          SimpleAggregateFunction(sum, UInt64) CODEC(ZSTD(3)),
    inferred           SimpleAggregateFunction(sum, UInt64) CODEC(ZSTD(3)),
    clients            AggregateFunction(uniqUpTo(99), UInt32),
    sites              AggregateFunction(uniqUpTo(99), UInt32),
    dns_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    tcp_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    tls_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    connect_hist       SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ttfb_hist          SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (cut, site, certKey, chainLength, cipherSuite, sigScheme, country, day, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_country_crypto_cuts_mv TO handshakes_country_crypto_cuts AS
SELECT
    grouping(certKey, chainLength, cipherSuite, sigScheme) AS cut,
    '' AS site,
    certKey,
    chainLength,
    cipherSuite,
    sigScheme,
    country,
    day,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    count() AS records,
    countIf(resumedSource IN ('observed', 'server-timing')) AS evidenced,
    countIf(resumedSource = 'inferred') AS inferred,
    uniqUpToState(99)(toUInt32(cityHash64(clientToken) % 4294967296)) AS clients,
    uniqUpToStateIf(99)(toUInt32(cityHash64(registered) % 4294967296), registered != '') AS sites,
    sumMap(map(if(dns < 0.1, 0, least(273, toUInt16(1 + floor(log(dns / 0.1) / log(1.05))))), toUInt64(1))) AS dns_hist,
    sumMap(map(if(tcp < 0.1, 0, least(273, toUInt16(1 + floor(log(tcp / 0.1) / log(1.05))))), toUInt64(1))) AS tcp_hist,
    sumMap(map(if(tls < 0.1, 0, least(273, toUInt16(1 + floor(log(tls / 0.1) / log(1.05))))), toUInt64(1))) AS tls_hist,
    sumMap(map(if(connect < 0.1, 0, least(273, toUInt16(1 + floor(log(connect / 0.1) / log(1.05))))), toUInt64(1))) AS connect_hist,
    sumMap(map(if(ttfb < 0.1, 0, least(273, toUInt16(1 + floor(log(ttfb / 0.1) / log(1.05))))), toUInt64(1))) AS ttfb_hist
FROM
(
    SELECT
        -- Named apart from the output's `site` (''), which an alias would substitute here.
        site AS registered,
        -- assumeNotNull: the branches never give NULL, but their type is Nullable, and a grouping set
        -- without the column would fill it with NULL instead of ''.
        assumeNotNull(multiIf(certKeyType = '', 'unknown', certKeyType = 'rsa', if(certKeyBits IS NULL, 'RSA', concat('RSA-', toString(certKeyBits))), certKeyType = 'ecdsa', if(certKeyBits IS NULL, 'ECDSA', concat('ECDSA-P', toString(certKeyBits))), certKeyType = 'ed25519', 'Ed25519', 'other')) AS certKey,
        assumeNotNull(multiIf(certChainLength IS NULL, 'unknown', certChainLength >= 5, '5+', toString(certChainLength))) AS chainLength,
        if(cipher = '', 'unknown', cipher) AS cipherSuite,
        if(signatureScheme = '', 'unknown', signatureScheme) AS sigScheme,
        country,
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
    (day, country, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, sigScheme, protocol, tlsVersion, resumed, handshakeClass)
);
