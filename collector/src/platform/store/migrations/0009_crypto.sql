-- The crypto lens: the leaf certificate's key, the chain's size, OCSP stapling and ECH
-- (record fields of the same names, shared/README.md), and where the crypto facts of a row come from.
-- Rows stored before these columns existed read as '' / NULL: unknown, never a guess.
-- cryptoSource: 'observed' when the client reported them for this connection (Firefox getSecurityInfo,
-- the synthetic runner), 'probe' when the collector filled them from the site's latest TLS probe
-- (a Chromium record of a registered site: Chromium tells extensions nothing about TLS), '' when none.
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS certKeyType LowCardinality(String) DEFAULT '';
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS certKeyBits Nullable(UInt16);
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS certChainBytes Nullable(UInt32);
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS ocspStapled Nullable(Bool);
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS ech Nullable(Bool);
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS cryptoSource LowCardinality(String) DEFAULT '';
-- The Cryptography panel's default range (7 days) reads a daily rollup of its own: per site or every site
-- together, by key-exchange group, certificate key, chain length and cipher (queries/dimensions.ts: the
-- dimensions group, pq, certKey, chainLength and cipher), with the same counts, mixes and histogram states
-- as handshakes_per_day (see 0006), so every query reads it the same way. Its own table rather than more
-- grouping sets in 0006's: that table's sorting key has no room for these keys, and a crypto cell never
-- needs country or protocol. Values are stored normalised ('unknown' where the row has none). Like 0007's
-- view it counts plausible, uncapped rows; the cap marks were made for 0006's cells (docs/integrity.md).
-- The migration runner fills it from the stored rows with the view's own SELECT (store/migrate.ts).
CREATE TABLE IF NOT EXISTS handshakes_crypto_per_day
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

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_crypto_per_day_mv TO handshakes_crypto_per_day AS
SELECT
    grouping(site) AS cut,
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
        multiIf(certKeyType = '', 'unknown', certKeyType = 'rsa', if(certKeyBits IS NULL, 'RSA', concat('RSA-', toString(certKeyBits))), certKeyType = 'ecdsa', if(certKeyBits IS NULL, 'ECDSA', concat('ECDSA-P', toString(certKeyBits))), certKeyType = 'ed25519', 'Ed25519', 'other') AS certKey,
        multiIf(certChainLength IS NULL, 'unknown', certChainLength >= 5, '5+', toString(certChainLength)) AS chainLength,
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
    (site, day, kxGroup, certKey, chainLength, cipherSuite),
    (day, kxGroup, certKey, chainLength, cipherSuite)
);
