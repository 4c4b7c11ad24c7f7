-- The hourly grain (0013) by browser alone and by source alone, each with the mix columns, for every site
-- together: two more grouping sets. An hourly series or a range of whole hours under a browser or a source
-- filter read the cut by browser, source and the crypto facts' source together (0013), whose rows for one hour
-- are every browser × source × crypto source × mix combination: a month of every site together held about
-- 250 000 rows at 10 M records, of which a filter keeps a third to two thirds, and merging their histograms is
-- most of such a query's work. The cut by browser alone holds about 100 000, by source alone 70 000. Not per
-- site: one site's rows of the three-column cut are that site's only, and the per-site twins would have cost
-- twice the disk of these two for queries a site's own size already bounds.
-- Their cut numbers are grouping() over the view's arguments, as before (query/sources.ts derives them).
--
-- The rows already stored are derived from the browser × source × crypto source cut itself, summed over the
-- columns the new cuts leave out (records and counts summed, client and site states merged, histograms summed),
-- so every hour the hourly grain keeps has them, raw rows expired or not. That statement runs only while the
-- new cuts are empty, so it can run again after a crash; a cluster runs it once through the Distributed table,
-- like 0024's. Apply it with the collectors stopped (the view is re-created: docs/cluster.md).

DROP VIEW IF EXISTS handshakes_per_hour_mv;

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
    (hour, browser, source, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (hour, browser, protocol, tlsVersion, resumed, handshakeClass),
    (hour, source, protocol, tlsVersion, resumed, handshakeClass)
);

INSERT INTO handshakes_per_hour (cut, site, country, browser, source, hour, protocol, tlsVersion, resumed, handshakeClass, versionEvidence, cryptoSource, records, evidenced, inferred, clients, sites, mix_handshakeClass, mix_protocol, mix_tlsVersion, mix_mode, dns_hist, tcp_hist, tls_hist, connect_hist, ttfb_hist)
SELECT
    kept.1 AS newCut,
    site,
    '' AS noCountry,
    kept.2 AS keptBrowser,
    kept.3 AS keptSource,
    hour,
    protocol,
    tlsVersion,
    resumed,
    handshakeClass,
    '' AS noEvidence,
    '' AS noCryptoSource,
    sum(records),
    sum(evidenced),
    sum(inferred),
    uniqUpToMergeState(99)(clients),
    uniqUpToMergeState(99)(sites),
    CAST(map(), 'Map(String, UInt64)'),
    CAST(map(), 'Map(String, UInt64)'),
    CAST(map(), 'Map(String, UInt64)'),
    CAST(map(), 'Map(String, UInt64)'),
    sumMap(dns_hist),
    sumMap(tcp_hist),
    sumMap(tls_hist),
    sumMap(connect_hist),
    sumMap(ttfb_hist)
FROM handshakes_per_hour
ARRAY JOIN [(toUInt16(cut + 129), browser, ''), (toUInt16(cut + 257), '', source)] AS kept
WHERE cut = 1538
    AND (SELECT count() FROM handshakes_per_hour WHERE cut IN (1667, 1795)) = 0
GROUP BY newCut, site, keptBrowser, keptSource, hour, protocol, tlsVersion, resumed, handshakeClass;
