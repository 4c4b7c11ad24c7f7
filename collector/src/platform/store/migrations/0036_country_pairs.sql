-- Country with one other column, per day, for every site together, without the columns a handshake cell's mixes come
-- from: the cells of countries compared by a browser, source, evidence or crypto column, and of the map under a
-- filter on one of them, over whole days. The cuts that hold country with such a column keep the mix columns too
-- (0016, 0018, 0029), which a cell's mix protection reads (query/cells.ts, jointMixCells); a cell's own figures read
-- the same rows there, about twenty times this table's for the same question, and merging their histograms was most
-- of the comparison's time (a month of ten million records: 130 000 rows, 90-190 ms, against 8 000 here). Only
-- questions holding country and that column read it (query/sources.ts, `exact`): for fewer columns a smaller cut
-- answers. Of every site together only, as 0029: one site's such figures read its site's cuts. Its `site` is always
-- '' (every site together), as in the other rollups' rows of every site: a cluster shards the tables that have one
-- (platform/store/cluster.ts), and this one is filled on each shard from that shard's records. The same rows and
-- normalised values as the other cuts (plausible, not `capped`); percentiles in the same log-scale buckets, kept
-- sparse, of the handshake's phases only (TLS, connect, TTFB: what a comparison and the map show; the phases chart's
-- DNS and TCP read the cuts with the mix columns, and were a third of this table's bytes); counts and buckets with
-- T64 (0031); distinct clients as 4-byte hashes (0020); the registered sites behind each row (0024), which the
-- k-sites rule of answers without a token counts. `cut` is grouping() over the nine columns, a bit set for each
-- column aggregated away (query/sources.ts derives it). Sorted by those columns before country and the day, in
-- granules of 256 rows (a cut holds a few thousand rows a month): a filter on one value, or on one country, reads the
-- granules holding its rows, not the cut's whole month. The columns are in the order of the view's SELECT: the
-- migration runner's backfill inserts it by position, filling this table from the records already stored (days whose
-- raw records have expired stay empty here).
CREATE TABLE IF NOT EXISTS handshakes_country_pairs
(
    cut                UInt16,
    site               LowCardinality(String),
    browser            LowCardinality(String),
    source             LowCardinality(String),
    versionEvidence    LowCardinality(String),
    cryptoSource       LowCardinality(String),
    kxGroup            LowCardinality(String),
    certKey            LowCardinality(String),
    chainLength        LowCardinality(String),
    cipherSuite        LowCardinality(String),
    sigScheme          LowCardinality(String),
    country            LowCardinality(String),
    day                DateTime('UTC'),
    records            SimpleAggregateFunction(sum, UInt64) CODEC(T64, ZSTD(3)),
    evidenced          SimpleAggregateFunction(sum, UInt64) CODEC(T64, ZSTD(3)),
    inferred           SimpleAggregateFunction(sum, UInt64) CODEC(T64, ZSTD(3)),
    clients            AggregateFunction(uniqUpTo(99), UInt32),
    sites              AggregateFunction(uniqUpTo(99), UInt32),
    tls_hist           SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(3)),
    connect_hist       SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(3)),
    ttfb_hist          SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(3))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (cut, site, browser, source, versionEvidence, cryptoSource, kxGroup, certKey, chainLength, cipherSuite, sigScheme, country, day)
SETTINGS index_granularity = 256;

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_country_pairs_mv TO handshakes_country_pairs AS
SELECT
    grouping(browser, source, versionEvidence, cryptoSource, kxGroup, certKey, chainLength, cipherSuite, sigScheme) AS cut,
    '' AS site,
    browser,
    source,
    versionEvidence,
    cryptoSource,
    kxGroup,
    certKey,
    chainLength,
    cipherSuite,
    sigScheme,
    country,
    day,
    count() AS records,
    countIf(resumedSource IN ('observed', 'server-timing')) AS evidenced,
    countIf(resumedSource = 'inferred') AS inferred,
    uniqUpToState(99)(toUInt32(cityHash64(clientToken) % 4294967296)) AS clients,
    uniqUpToStateIf(99)(toUInt32(cityHash64(registered) % 4294967296), registered != '') AS sites,
    sumMap(map(if(tls < 0.1, 0, least(273, toUInt16(1 + floor(log(tls / 0.1) / log(1.05))))), toUInt64(1))) AS tls_hist,
    sumMap(map(if(connect < 0.1, 0, least(273, toUInt16(1 + floor(log(connect / 0.1) / log(1.05))))), toUInt64(1))) AS connect_hist,
    sumMap(map(if(ttfb < 0.1, 0, least(273, toUInt16(1 + floor(log(ttfb / 0.1) / log(1.05))))), toUInt64(1))) AS ttfb_hist
FROM
(
    SELECT
        -- Named apart from the output's `site` (''), which an alias would substitute here.
        site AS registered,
        browser,
        source,
        tlsVersionSource AS versionEvidence,
        if(cryptoSource = '', 'none', cryptoSource) AS cryptoSource,
        if(keyExchangeGroup = '', 'unknown', keyExchangeGroup) AS kxGroup,
        -- assumeNotNull: the branches never give NULL, but their type is Nullable, and a grouping set
        -- without the column would fill it with NULL instead of ''.
        assumeNotNull(multiIf(certKeyType = '', 'unknown', certKeyType = 'rsa', if(certKeyBits IS NULL, 'RSA', concat('RSA-', toString(certKeyBits))), certKeyType = 'ecdsa', if(certKeyBits IS NULL, 'ECDSA', concat('ECDSA-P', toString(certKeyBits))), certKeyType = 'ed25519', 'Ed25519', 'other')) AS certKey,
        assumeNotNull(multiIf(certChainLength IS NULL, 'unknown', certChainLength >= 5, '5+', toString(certChainLength))) AS chainLength,
        if(cipher = '', 'unknown', cipher) AS cipherSuite,
        if(signatureScheme = '', 'unknown', signatureScheme) AS sigScheme,
        country,
        toStartOfDay(ts, 'UTC') AS day,
        resumedSource,
        clientToken,
        tls,
        connect,
        ttfb
    FROM handshakes
    WHERE implausible = 0 AND capped = 0
)
GROUP BY GROUPING SETS (
    (day, country, browser),
    (day, country, source),
    (day, country, versionEvidence),
    (day, country, cryptoSource),
    (day, country, kxGroup),
    (day, country, certKey),
    (day, country, chainLength),
    (day, country, cipherSuite),
    (day, country, sigScheme)
);
