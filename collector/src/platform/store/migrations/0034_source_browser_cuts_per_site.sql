-- The crypto and evidence columns with the source or the browser (0032) keep their rows of one site each only:
-- every site together sums the sites' rows, as the pair cuts (0033) do (histograms and counts add up; merged
-- distinct-client states count a client once). An answer without a token read those rows anyway, whole, for the
-- k-sites count; the rows of every site together served only answers with a token, and were a third of the table.
-- The view no longer writes them and the stored ones are deleted. The view is dropped first, so no insert between
-- the two statements writes rows of every site together again (the collector applies migrations before it takes
-- records); every statement can run again after a crash.
DROP VIEW IF EXISTS handshakes_source_browser_cuts_mv;

-- cut = grouping(site, source, browser, …): bit 9, the site's, is set in the rows of every site together.
ALTER TABLE handshakes_source_browser_cuts DELETE WHERE bitTest(cut, 9) SETTINGS mutations_sync = 2;

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
    (site, source, day, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, source, day, cryptoSource, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, kxGroup, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, certKey, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, chainLength, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, cipherSuite, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, sigScheme, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, versionEvidence, protocol, tlsVersion, resumed, handshakeClass),
    (site, browser, day, cryptoSource, protocol, tlsVersion, resumed, handshakeClass)
);
