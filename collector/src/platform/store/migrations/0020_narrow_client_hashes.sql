-- Each rollup row's distinct clients are kept as 4-byte hashes instead of 8-byte ones: the `clients` states
-- were the largest column of every cut (random bytes that do not compress). A state holds up to 99 hashes of
-- the client tokens; two clients whose hashes agree count once, which can only hide a cell, never show one
-- (with at most 100 clients per state, about one pair in a million states).
--
-- The stored states are converted in place, so no figure is lost even where the raw rows have expired: a
-- state is its count (one byte) and, up to 99, the 8-byte cityHash64 of each token; the new state holds the
-- low 4 bytes of each (what the re-created views compute), and a state past 99 keeps "100 or more". The
-- conversion reads the width from the state's length, so it also leaves a converted state as it is: every
-- statement here can run again after a crash. Dropping the old column and naming the new one is one ALTER.

DROP VIEW IF EXISTS handshakes_crypto_per_day_mv;

ALTER TABLE handshakes_crypto_per_day ADD COLUMN IF NOT EXISTS clients_narrow AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

ALTER TABLE handshakes_crypto_per_day UPDATE clients_narrow = arrayReduce('uniqUpToState(99)', if(
    reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)) > 99,
    arrayMap(i -> toUInt32(i), range(100)),
    arrayMap(i -> reinterpretAsUInt32(substring(formatRow('RowBinary', clients), 2 + i * intDiv(length(formatRow('RowBinary', clients)) - 1, greatest(1, reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)))), 4)), range(reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1))))))
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_crypto_per_day DROP COLUMN clients, RENAME COLUMN clients_narrow TO clients;

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

DROP VIEW IF EXISTS handshakes_cuts_mv;

ALTER TABLE handshakes_cuts ADD COLUMN IF NOT EXISTS clients_narrow AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

ALTER TABLE handshakes_cuts UPDATE clients_narrow = arrayReduce('uniqUpToState(99)', if(
    reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)) > 99,
    arrayMap(i -> toUInt32(i), range(100)),
    arrayMap(i -> reinterpretAsUInt32(substring(formatRow('RowBinary', clients), 2 + i * intDiv(length(formatRow('RowBinary', clients)) - 1, greatest(1, reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)))), 4)), range(reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1))))))
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_cuts DROP COLUMN clients, RENAME COLUMN clients_narrow TO clients;

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
    CAST(map(), 'Map(String, UInt64)') AS mix_handshakeClass,
    CAST(map(), 'Map(String, UInt64)') AS mix_protocol,
    CAST(map(), 'Map(String, UInt64)') AS mix_tlsVersion,
    CAST(map(), 'Map(String, UInt64)') AS mix_mode,
    countResampleState(0, 274, 1)(if(dns < 0.1, 0, least(273, toUInt16(1 + floor(log(dns / 0.1) / log(1.05)))))) AS dns_buckets,
    countResampleState(0, 274, 1)(if(tcp < 0.1, 0, least(273, toUInt16(1 + floor(log(tcp / 0.1) / log(1.05)))))) AS tcp_buckets,
    countResampleState(0, 274, 1)(if(tls < 0.1, 0, least(273, toUInt16(1 + floor(log(tls / 0.1) / log(1.05)))))) AS tls_buckets,
    countResampleState(0, 274, 1)(if(connect < 0.1, 0, least(273, toUInt16(1 + floor(log(connect / 0.1) / log(1.05)))))) AS connect_buckets,
    countResampleState(0, 274, 1)(if(ttfb < 0.1, 0, least(273, toUInt16(1 + floor(log(ttfb / 0.1) / log(1.05)))))) AS ttfb_buckets
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

DROP VIEW IF EXISTS handshakes_per_hour_mv;

ALTER TABLE handshakes_per_hour ADD COLUMN IF NOT EXISTS clients_narrow AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

ALTER TABLE handshakes_per_hour UPDATE clients_narrow = arrayReduce('uniqUpToState(99)', if(
    reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)) > 99,
    arrayMap(i -> toUInt32(i), range(100)),
    arrayMap(i -> reinterpretAsUInt32(substring(formatRow('RowBinary', clients), 2 + i * intDiv(length(formatRow('RowBinary', clients)) - 1, greatest(1, reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)))), 4)), range(reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1))))))
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_per_hour DROP COLUMN clients, RENAME COLUMN clients_narrow TO clients;

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_per_hour_mv TO handshakes_per_hour AS
SELECT
    grouping(site, country, browser, source, hour, protocol, tlsVersion, resumed, handshakeClass, versionEvidence, cryptoSource) AS cut,
    site,
    country,
    browser,
    source,
    hour,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    versionEvidence,
    cryptoSource,
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
        country,
        browser,
        source,
        toStartOfHour(ts, 'UTC') AS hour,
        protocol,
        ifNull(tlsVersion, 'unknown') AS tlsVersion,
        multiIf(resumed IS NULL, 'unknown', resumed, 'true', 'false') AS resumed,
        handshakeClass,
        tlsVersionSource AS versionEvidence,
        if(cryptoSource = '', 'none', cryptoSource) AS cryptoSource,
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
    (site, hour, protocol, tlsVersion, resumed, handshakeClass),
    (site, hour, country, protocol, tlsVersion, resumed, handshakeClass),
    (site, hour, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, hour, browser, source, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (hour, protocol, tlsVersion, resumed, handshakeClass),
    (hour, country, protocol, tlsVersion, resumed, handshakeClass),
    (hour, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (hour, browser, source, cryptoSource, protocol, tlsVersion, resumed, handshakeClass)
);

DROP VIEW IF EXISTS handshakes_crypto_cuts_mv;

ALTER TABLE handshakes_crypto_cuts ADD COLUMN IF NOT EXISTS clients_narrow AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

ALTER TABLE handshakes_crypto_cuts UPDATE clients_narrow = arrayReduce('uniqUpToState(99)', if(
    reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)) > 99,
    arrayMap(i -> toUInt32(i), range(100)),
    arrayMap(i -> reinterpretAsUInt32(substring(formatRow('RowBinary', clients), 2 + i * intDiv(length(formatRow('RowBinary', clients)) - 1, greatest(1, reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)))), 4)), range(reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1))))))
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_crypto_cuts DROP COLUMN clients, RENAME COLUMN clients_narrow TO clients;

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

DROP VIEW IF EXISTS handshakes_country_cuts_mv;

ALTER TABLE handshakes_country_cuts ADD COLUMN IF NOT EXISTS clients_narrow AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

ALTER TABLE handshakes_country_cuts UPDATE clients_narrow = arrayReduce('uniqUpToState(99)', if(
    reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)) > 99,
    arrayMap(i -> toUInt32(i), range(100)),
    arrayMap(i -> reinterpretAsUInt32(substring(formatRow('RowBinary', clients), 2 + i * intDiv(length(formatRow('RowBinary', clients)) - 1, greatest(1, reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)))), 4)), range(reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1))))))
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_country_cuts DROP COLUMN clients, RENAME COLUMN clients_narrow TO clients;

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_country_cuts_mv TO handshakes_country_cuts AS
SELECT
    grouping(site, browser, source, versionEvidence, cryptoSource) AS cut,
    site,
    day,
    browser,
    source,
    versionEvidence,
    cryptoSource,
    country,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
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
        browser,
        source,
        tlsVersionSource AS versionEvidence,
        if(cryptoSource = '', 'none', cryptoSource) AS cryptoSource,
        country,
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
    (site, day, country, browser, source, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, browser, source, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, cryptoSource, protocol, tlsVersion, resumed, handshakeClass)
);

DROP VIEW IF EXISTS handshakes_evidence_cuts_mv;

ALTER TABLE handshakes_evidence_cuts ADD COLUMN IF NOT EXISTS clients_narrow AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

ALTER TABLE handshakes_evidence_cuts UPDATE clients_narrow = arrayReduce('uniqUpToState(99)', if(
    reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)) > 99,
    arrayMap(i -> toUInt32(i), range(100)),
    arrayMap(i -> reinterpretAsUInt32(substring(formatRow('RowBinary', clients), 2 + i * intDiv(length(formatRow('RowBinary', clients)) - 1, greatest(1, reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)))), 4)), range(reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1))))))
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_evidence_cuts DROP COLUMN clients, RENAME COLUMN clients_narrow TO clients;

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

DROP VIEW IF EXISTS handshakes_country_group_cuts_mv;

ALTER TABLE handshakes_country_group_cuts ADD COLUMN IF NOT EXISTS clients_narrow AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

ALTER TABLE handshakes_country_group_cuts UPDATE clients_narrow = arrayReduce('uniqUpToState(99)', if(
    reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)) > 99,
    arrayMap(i -> toUInt32(i), range(100)),
    arrayMap(i -> reinterpretAsUInt32(substring(formatRow('RowBinary', clients), 2 + i * intDiv(length(formatRow('RowBinary', clients)) - 1, greatest(1, reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1)))), 4)), range(reinterpretAsUInt8(substring(formatRow('RowBinary', clients), 1, 1))))))
WHERE true SETTINGS mutations_sync = 2;

ALTER TABLE handshakes_country_group_cuts DROP COLUMN clients, RENAME COLUMN clients_narrow TO clients;

CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_country_group_cuts_mv TO handshakes_country_group_cuts AS
SELECT
    grouping(site) AS cut,
    site,
    day,
    country,
    kxGroup,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
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
        country,
        if(keyExchangeGroup = '', 'unknown', keyExchangeGroup) AS kxGroup,
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
    (site, day, country, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (day, country, kxGroup, protocol, tlsVersion, resumed, handshakeClass)
);
