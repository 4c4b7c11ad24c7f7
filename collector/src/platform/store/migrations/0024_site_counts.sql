-- Each rollup that the public answers read for every site together also counts, in each of those rows, the
-- registered sites behind it: `sites`, a uniqUpTo(99) state of each site's name hashed to 4 bytes, as
-- `clients` keeps the client tokens (registered sites only: unregistered records have site ''). The k-sites
-- rule of answers without a token (MIN_SITES_PER_CELL; query/cells.ts) needs that count per cell: it was read
-- from the same cut of one site each, two to five times the rows of every site together, joined to the cells
-- by their keys. Now a cell's count merges the states of the rows it reads already. Two sites whose hashes
-- agree count once, which can only hide a cell, never show one.
--
-- The per-site rows hold their own site in it too (the view computes it for every grouping set); nothing reads
-- it there. The rows already stored get their count from their twins of one site each, which hold the same
-- keys with the site: an added row per group, with that state and no records, which the table merges into
-- the stored one. So the count is right for every day the rollups keep, raw rows expired or not, and the
-- statements can run again after a crash (merging a state of the same sites changes nothing).
-- Four tables: the daily cuts (0011), the hourly grain (0013), the country cuts (0016) and the country ×
-- key-exchange group cuts (0018). The smaller cuts (crypto, evidence, signature) are read one site each
-- anyway (query/sources.ts, `few`).

DROP VIEW IF EXISTS handshakes_cuts_mv;

ALTER TABLE handshakes_cuts ADD COLUMN IF NOT EXISTS sites AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

INSERT INTO handshakes_cuts (cut, country, browser, source, day, hour, protocol, tlsVersion, resumed, handshakeClass, sites)
SELECT
    cut + 256 AS twin,
    country,
    browser,
    source,
    day,
    hour,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    uniqUpToStateIf(99)(toUInt32(cityHash64(site) % 4294967296), site != '') AS sites
FROM handshakes_cuts
WHERE bitAnd(cut, 256) = 0
GROUP BY cut, country, browser, source, day, hour, protocol, tlsVersion, resumed, handshakeClass;

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

ALTER TABLE handshakes_per_hour ADD COLUMN IF NOT EXISTS sites AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

INSERT INTO handshakes_per_hour (cut, country, browser, source, hour, protocol, tlsVersion, resumed, handshakeClass, versionEvidence, cryptoSource, sites)
SELECT
    cut + 1024 AS twin,
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
    uniqUpToStateIf(99)(toUInt32(cityHash64(site) % 4294967296), site != '') AS sites
FROM handshakes_per_hour
WHERE bitAnd(cut, 1024) = 0
GROUP BY cut, country, browser, source, hour, protocol, tlsVersion, resumed, handshakeClass, versionEvidence, cryptoSource;

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

DROP VIEW IF EXISTS handshakes_country_cuts_mv;

ALTER TABLE handshakes_country_cuts ADD COLUMN IF NOT EXISTS sites AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

INSERT INTO handshakes_country_cuts (cut, day, browser, source, versionEvidence, cryptoSource, country, protocol, tlsVersion, resumed, handshakeClass, sites)
SELECT
    cut + 16 AS twin,
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
    uniqUpToStateIf(99)(toUInt32(cityHash64(site) % 4294967296), site != '') AS sites
FROM handshakes_country_cuts
WHERE bitAnd(cut, 16) = 0
GROUP BY cut, day, browser, source, versionEvidence, cryptoSource, country, protocol, tlsVersion, resumed, handshakeClass;

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

DROP VIEW IF EXISTS handshakes_country_group_cuts_mv;

ALTER TABLE handshakes_country_group_cuts ADD COLUMN IF NOT EXISTS sites AggregateFunction(uniqUpTo(99), UInt32) AFTER clients;

INSERT INTO handshakes_country_group_cuts (cut, day, country, kxGroup, protocol, tlsVersion, resumed, handshakeClass, sites)
SELECT
    cut + 1 AS twin,
    day,
    country,
    kxGroup,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    uniqUpToStateIf(99)(toUInt32(cityHash64(site) % 4294967296), site != '') AS sites
FROM handshakes_country_group_cuts
WHERE bitAnd(cut, 1) = 0
GROUP BY cut, day, country, kxGroup, protocol, tlsVersion, resumed, handshakeClass;

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
