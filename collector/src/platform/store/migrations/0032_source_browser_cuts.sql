-- One crypto or evidence column with the source or the browser and the columns a handshake cell's mixes come
-- from, per day: per site and for every site together, by the source or the browser (the other '') and by the
-- key-exchange group, the certificate key, the chain length, the cipher, the signature scheme, the version
-- evidence or the crypto facts' source (one of them, the others ''), with protocol, TLS version, resumption and
-- class. No cut held a crypto or evidence column with either, so under a source or a browser filter the
-- dashboard's crypto panel and its coverage line read the raw table, and a site's view opens on its own pages
-- (source "page") as soon as its beacon has sent records: 240-360 ms per chart for a site of a few hundred
-- thousand records a week, growing with its records.
-- The same rows and normalised values as the crypto cuts (0015), the signature cuts (0021) and the evidence cuts
-- (0017), of which these are the same groups split by source or by browser: plausible, not `capped`;
-- percentiles in the same log-scale buckets, kept sparse, and counts and buckets with T64 (0031); distinct
-- clients as 4-byte hashes (0020). A few thousand rows a day: read whole, one site each, for the k-sites count
-- of answers without a token, like those cuts. `cut` is grouping(site, source, browser, kxGroup, certKey,
-- chainLength, cipherSuite, sigScheme, versionEvidence, cryptoSource), a bit set for each column aggregated
-- away (query/sources.ts derives it). The columns are in the order of the view's SELECT: the migration
-- runner's backfill inserts it by position, filling this table from the records already stored (days whose raw
-- records have expired stay empty here).
CREATE TABLE IF NOT EXISTS handshakes_source_browser_cuts
(
    cut                UInt16,
    site               LowCardinality(String),
    source             LowCardinality(String),
    browser            LowCardinality(String),
    day                DateTime('UTC'),
    kxGroup            LowCardinality(String),
    certKey            LowCardinality(String),
    chainLength        LowCardinality(String),
    cipherSuite        LowCardinality(String),
    sigScheme          LowCardinality(String),
    versionEvidence    LowCardinality(String),
    cryptoSource       LowCardinality(String),
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
ORDER BY (cut, site, source, browser, day, kxGroup, certKey, chainLength, cipherSuite, sigScheme, versionEvidence, cryptoSource, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_source_browser_cuts_mv TO handshakes_source_browser_cuts AS
SELECT
    grouping(site, source, browser, kxGroup, certKey, chainLength, cipherSuite, sigScheme, versionEvidence, cryptoSource) AS cut,
    site,
    source,
    browser,
    day,
    kxGroup,
    certKey,
    chainLength,
    cipherSuite,
    sigScheme,
    versionEvidence,
    cryptoSource,
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
        source,
        browser,
        toStartOfDay(ts, 'UTC') AS day,
        if(keyExchangeGroup = '', 'unknown', keyExchangeGroup) AS kxGroup,
        -- assumeNotNull: the branches never give NULL, but their type is Nullable, and a grouping set
        -- without the column would fill it with NULL instead of ''.
        assumeNotNull(multiIf(certKeyType = '', 'unknown', certKeyType = 'rsa', if(certKeyBits IS NULL, 'RSA', concat('RSA-', toString(certKeyBits))), certKeyType = 'ecdsa', if(certKeyBits IS NULL, 'ECDSA', concat('ECDSA-P', toString(certKeyBits))), certKeyType = 'ed25519', 'Ed25519', 'other')) AS certKey,
        assumeNotNull(multiIf(certChainLength IS NULL, 'unknown', certChainLength >= 5, '5+', toString(certChainLength))) AS chainLength,
        if(cipher = '', 'unknown', cipher) AS cipherSuite,
        if(signatureScheme = '', 'unknown', signatureScheme) AS sigScheme,
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
    (site, source, day, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (source, day, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (source, day, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (source, day, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (source, day, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (source, day, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (source, day, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (source, day, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (browser, day, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (browser, day, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (browser, day, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (browser, day, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (browser, day, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (browser, day, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (browser, day, cryptoSource, protocol, tlsVersion, resumed, handshakeClass)
);
