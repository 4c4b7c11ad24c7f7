-- Two crypto or evidence columns together with the columns a handshake cell's mixes come from, per day and per
-- site: by each pair of the key-exchange group, the certificate key, the chain length, the cipher, the signature
-- scheme, the version evidence and the crypto facts' source (the other columns ''), with protocol, TLS version,
-- resumption and class; and, by the browser, each of the first six with the crypto facts' source (the
-- Cryptography panel's "who reported these facts" split).
-- A crypto column under a filter on another one (the Cryptography panel under `pq=hybrid`, a certificate key,
-- a cipher …), under an evidence or a signature filter, or the coverage line under a crypto filter, had its
-- cells' joint mix cells (query/cells.ts) or its cells themselves in no cut: the crypto combinations (0009)
-- hold the four crypto columns without the mix columns, and every other cut holds one crypto column at a time.
-- Those charts read the raw table, a cost growing with the records in the range.
-- No rows of every site together: every site's figures sum the sites' rows (histograms and counts add up, and
-- merging the sites' distinct-client states counts each client once), which an answer without a token reads
-- anyway for the k-sites count; such rows would add half as many again.
-- The same rows and normalised values as the crypto, signature, evidence and source cuts (0015, 0021, 0017,
-- 0032), of which these are the same groups split by a second column: plausible, not `capped`; percentiles in
-- the same log-scale buckets, kept sparse; counts and buckets with T64 (0031); distinct clients as 4-byte
-- hashes (0020). Its rows grow with the distinct pairs a day holds, not with the records. `cut` is
-- grouping(site, browser, kxGroup, certKey, chainLength, cipherSuite, sigScheme, versionEvidence, cryptoSource),
-- a bit set for each column aggregated away (query/sources.ts derives it; the site's is never set). The columns
-- are in the order of the view's SELECT: the migration runner's backfill inserts it by position, filling this
-- table from the records already stored (days whose raw records have expired stay empty here).
CREATE TABLE IF NOT EXISTS handshakes_crypto_pair_cuts
(
    cut                UInt16,
    site               LowCardinality(String),
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
ORDER BY (cut, site, browser, day, kxGroup, certKey, chainLength, cipherSuite, sigScheme, versionEvidence, cryptoSource, protocol, tlsVersion, resumed, handshakeClass);

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_crypto_pair_cuts_mv TO handshakes_crypto_pair_cuts AS
SELECT
    grouping(site, browser, kxGroup, certKey, chainLength, cipherSuite, sigScheme, versionEvidence, cryptoSource) AS cut,
    site,
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
    (site, day, kxGroup, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, kxGroup, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, kxGroup, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, kxGroup, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, kxGroup, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, kxGroup, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, certKey, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, certKey, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, certKey, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, certKey, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, certKey, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, chainLength, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, chainLength, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, chainLength, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, chainLength, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, cipherSuite, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, cipherSuite, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, cipherSuite, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, sigScheme, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, sigScheme, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, versionEvidence, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, kxGroup, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, certKey, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, chainLength, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, cipherSuite, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, sigScheme, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, versionEvidence, cryptoSource, protocol, tlsVersion, resumed, handshakeClass)
);
