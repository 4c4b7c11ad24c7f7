-- Site probe history (collector/src/probes, the probe itself in probe/): one row per probe of a registered site or of an extra hostname
-- registered for it. `result` is the probe's JSON exactly as `pnpm probe --json` prints it (the contract in
-- shared/src/probe.ts); the certificate identities are kept beside it for the change checks. Rows describe
-- servers, never users. The TTL is replaced at start-up by PROBE_RETENTION_DAYS (store/migrate.ts).
CREATE TABLE IF NOT EXISTS site_probes
(
    site           LowCardinality(String),
    hostname       String,
    probedAt       DateTime64(3, 'UTC') CODEC(Delta, ZSTD),
    ok             UInt8,
    result         String CODEC(ZSTD),
    leafSpkiSha256 String,
    chainSha256    String
)
ENGINE = MergeTree
ORDER BY (site, hostname, probedAt)
TTL toDateTime(probedAt) + toIntervalDay(395);

-- Extra hostnames probed for a site (a static host, an API host): registered by an admin, never from input
-- a browser sends.
CREATE TABLE IF NOT EXISTS probe_targets
(
    site      LowCardinality(String),
    hostname  String,
    deleted   UInt8 DEFAULT 0,
    version   UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (site, hostname);
