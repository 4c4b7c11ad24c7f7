-- The daily cuts (0011) and the crypto rollup (0009) keep their percentile buckets as sparse maps, as every
-- rollup added since the hourly grain (0013) does: per phase a map from bucket index to count, holding only
-- the buckets its records fall in (about 30 of 274 in a day's row), instead of a countResample state of all
-- 274 counters. Same buckets, same bound (query/histogram.ts). Merging a dense state costs a nested count
-- state per bucket; a month's cell merged its 274 per row and phase, which made a daily cut's percentiles
-- two to three times the cost of the same figures from sparse maps (docs/decisions/0004-histogram-rollup.md).
--
-- The stored states are converted in place, so no figure is lost where the raw rows have expired: each
-- state's counts become the map of its non-zero buckets. Every statement can run again after a crash: the
-- dense column is re-added if it was dropped already (empty states), and a row whose map is filled keeps it.

DROP VIEW IF EXISTS handshakes_cuts_mv;

ALTER TABLE handshakes_cuts
    ADD COLUMN IF NOT EXISTS dns_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS tcp_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS tls_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS connect_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS ttfb_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS dns_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ADD COLUMN IF NOT EXISTS tcp_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ADD COLUMN IF NOT EXISTS tls_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ADD COLUMN IF NOT EXISTS connect_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ADD COLUMN IF NOT EXISTS ttfb_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3));

ALTER TABLE handshakes_cuts UPDATE
    dns_hist = if(empty(dns_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(dns_buckets))), dns_hist),
    tcp_hist = if(empty(tcp_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(tcp_buckets))), tcp_hist),
    tls_hist = if(empty(tls_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(tls_buckets))), tls_hist),
    connect_hist = if(empty(connect_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(connect_buckets))), connect_hist),
    ttfb_hist = if(empty(ttfb_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(ttfb_buckets))), ttfb_hist)
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_cuts
    DROP COLUMN IF EXISTS dns_buckets,
    DROP COLUMN IF EXISTS tcp_buckets,
    DROP COLUMN IF EXISTS tls_buckets,
    DROP COLUMN IF EXISTS connect_buckets,
    DROP COLUMN IF EXISTS ttfb_buckets;

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_cuts_mv TO handshakes_cuts AS
SELECT
    grouping(site, country, browser, source, hour, protocol, tlsVersion, resumed, handshakeClass) AS cut,
    site,
    country,
    browser,
    source,
    day,
    hour,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    count() AS records,
    countIf(resumedSource IN ('observed', 'server-timing')) AS evidenced,
    countIf(resumedSource = 'inferred') AS inferred,
    uniqUpToState(99)(toUInt32(cityHash64(clientToken) % 4294967296)) AS clients,
    uniqUpToStateIf(99)(toUInt32(cityHash64(site) % 4294967296), site != '') AS sites,
    CAST(map(), 'Map(String, UInt64)') AS mix_handshakeClass,
    CAST(map(), 'Map(String, UInt64)') AS mix_protocol,
    CAST(map(), 'Map(String, UInt64)') AS mix_tlsVersion,
    CAST(map(), 'Map(String, UInt64)') AS mix_mode,
    sumMap(map(if(dns < 0.1, 0, least(273, toUInt16(1 + floor(log(dns / 0.1) / log(1.05))))), toUInt64(1))) AS dns_hist,
    sumMap(map(if(tcp < 0.1, 0, least(273, toUInt16(1 + floor(log(tcp / 0.1) / log(1.05))))), toUInt64(1))) AS tcp_hist,
    sumMap(map(if(tls < 0.1, 0, least(273, toUInt16(1 + floor(log(tls / 0.1) / log(1.05))))), toUInt64(1))) AS tls_hist,
    sumMap(map(if(connect < 0.1, 0, least(273, toUInt16(1 + floor(log(connect / 0.1) / log(1.05))))), toUInt64(1))) AS connect_hist,
    sumMap(map(if(ttfb < 0.1, 0, least(273, toUInt16(1 + floor(log(ttfb / 0.1) / log(1.05))))), toUInt64(1))) AS ttfb_hist
FROM
(
    SELECT
        site,
        country,
        browser,
        source,
        toStartOfDay(ts, 'UTC') AS day,
        toStartOfHour(ts, 'UTC') AS hour,
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
    (site, day, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country),
    (site, day, browser, source, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country, browser, source),
    (site, day, country, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country, protocol, tlsVersion),
    (site, day, country, resumed, handshakeClass),
    (site, day, hour),
    (site, day, hour, protocol, tlsVersion),
    (day, protocol, tlsVersion, resumed, handshakeClass),
    (day, country),
    (day, browser, source, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, browser, source),
    (day, country, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, protocol, tlsVersion),
    (day, country, resumed, handshakeClass),
    (day, hour),
    (day, hour, protocol, tlsVersion)
);

DROP VIEW IF EXISTS handshakes_crypto_per_day_mv;

ALTER TABLE handshakes_crypto_per_day
    ADD COLUMN IF NOT EXISTS dns_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS tcp_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS tls_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS connect_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS ttfb_buckets AggregateFunction(countResample(0, 274, 1), UInt16),
    ADD COLUMN IF NOT EXISTS dns_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ADD COLUMN IF NOT EXISTS tcp_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ADD COLUMN IF NOT EXISTS tls_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ADD COLUMN IF NOT EXISTS connect_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3)),
    ADD COLUMN IF NOT EXISTS ttfb_hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(3));

ALTER TABLE handshakes_crypto_per_day UPDATE
    dns_hist = if(empty(dns_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(dns_buckets))), dns_hist),
    tcp_hist = if(empty(tcp_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(tcp_buckets))), tcp_hist),
    tls_hist = if(empty(tls_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(tls_buckets))), tls_hist),
    connect_hist = if(empty(connect_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(connect_buckets))), connect_hist),
    ttfb_hist = if(empty(ttfb_hist), mapFilter((k, v) -> v > 0, mapFromArrays(arrayMap(i -> toUInt16(i), range(274)), finalizeAggregation(ttfb_buckets))), ttfb_hist)
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_crypto_per_day
    DROP COLUMN IF EXISTS dns_buckets,
    DROP COLUMN IF EXISTS tcp_buckets,
    DROP COLUMN IF EXISTS tls_buckets,
    DROP COLUMN IF EXISTS connect_buckets,
    DROP COLUMN IF EXISTS ttfb_buckets;

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
    uniqUpToState(99)(toUInt32(cityHash64(clientToken) % 4294967296)) AS clients,
    CAST(map(), 'Map(String, UInt64)') AS mix_handshakeClass,
    CAST(map(), 'Map(String, UInt64)') AS mix_protocol,
    CAST(map(), 'Map(String, UInt64)') AS mix_tlsVersion,
    CAST(map(), 'Map(String, UInt64)') AS mix_mode,
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
        multiIf(certKeyType = '', 'unknown', certKeyType = 'rsa', if(certKeyBits IS NULL, 'RSA', concat('RSA-', toString(certKeyBits))), certKeyType = 'ecdsa', if(certKeyBits IS NULL, 'ECDSA', concat('ECDSA-P', toString(certKeyBits))), certKeyType = 'ed25519', 'Ed25519', 'other') AS certKey,
        multiIf(certChainLength IS NULL, 'unknown', certChainLength >= 5, '5+', toString(certChainLength)) AS chainLength,
        if(cipher = '', 'unknown', cipher) AS cipherSuite,
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
