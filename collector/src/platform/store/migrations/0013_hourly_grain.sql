-- The hourly grain beside the daily rollup (0011's handshakes_cuts), so that a range of whole hours that is
-- not whole days (the last 24 hours, the last 3 days) and an hourly series are read from pre-aggregated
-- state instead of the raw table: a query reads at most its range's hours × its groups, whatever the
-- number of records stored (queries/sources.ts picks the table; ranges of a week or more are widened to
-- whole days and read the daily cuts).
-- Same rows as the daily rollup: plausible and not `capped`, the per-client cap decided at ingest for the
-- client's UTC day and site (0007), so a range of whole hours counts exactly the rows the raw table's
-- figures of that range count, and a day's hours add up to the day.
-- Four cuts, each per site and for every site together, all of them with the columns a handshake cell's
-- mixes are computed from (protocol, TLS version, class, resumption: every cell's joint mix cells group by
-- them): by the stack and mode alone, by country, by the TLS version's evidence, and by browser, source
-- and the crypto facts' source. Not every daily cut: an hour holds few records per group, and the daily
-- cuts' dense histograms (274 counters per phase) cost 11 KB per row to build; mirroring the 18 daily
-- cuts by hour made 5.8 rows per record and slowed filling 5×. Percentiles here are the same log-scale
-- buckets as 0006's (queries/histogram.ts), kept sparse: a map of bucket index to count per phase,
-- merged by sumMap, so a row holds only the buckets its records fall in.
-- `cut` is grouping() over the key columns in the argument order below (queries/sources.ts derives it).
-- The columns are in the order of the view's SELECT: the migration runner's backfill inserts it by
-- position, filling this table from the records already stored.
-- docs/decisions/0009-hourly-grain.md says what still reads the raw table, and why.
CREATE TABLE IF NOT EXISTS handshakes_per_hour
(
    cut                UInt16,
    site               LowCardinality(String),
    country            LowCardinality(String),
    browser            LowCardinality(String),
    source             LowCardinality(String),
    hour               DateTime('UTC'),
    protocol           LowCardinality(String),
    tlsVersion         LowCardinality(String),
    resumed            LowCardinality(String),
    handshakeClass     LowCardinality(String),
    versionEvidence    LowCardinality(String),
    cryptoSource       LowCardinality(String),
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
PARTITION BY toYYYYMM(hour)
ORDER BY (cut, site, hour, country, browser, source, versionEvidence, cryptoSource, protocol, tlsVersion, resumed, handshakeClass);

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
