-- Plausibility flags: a bit mask of the flag rules a record fails (shared/src/plausibility.ts)
-- and of the tokens-per-address flag; 0 = plausible. Flagged rows are stored but left out of every
-- figure: the raw queries read them through query/counted.ts, and the daily rollup's view is re-created
-- to skip them (same SELECT as 0006 plus the WHERE). Rows stored before this column existed read as 0.
-- `capped`: the record was beyond the first K of its client token, UTC day and rollup cell when it
-- arrived (collector/src/ingest/client-cap.ts): the per-client cap of the rollup, which its view cannot
-- count itself. The raw-table queries ignore it (they cap per their own cells: query/counted.ts).
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS implausible UInt8 DEFAULT 0;
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS capped UInt8 DEFAULT 0;
DROP VIEW IF EXISTS handshakes_per_day_mv;
CREATE MATERIALIZED VIEW IF NOT EXISTS handshakes_per_day_mv TO handshakes_per_day AS
SELECT
    grouping(site, country, protocol) AS cut,
    site,
    day,
    country,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
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
    (site, day, protocol, tlsVersion, resumed, handshakeClass),
    (site, day, country),
    (day, protocol, tlsVersion, resumed, handshakeClass),
    (day, country)
);
