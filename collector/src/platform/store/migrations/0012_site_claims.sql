-- Ownership claims of self-registering site owners (collector/src/sites/claims): one row per claim, the
-- latest version of each kept. A claim is `pending` until its challenge is found on the site (well-known
-- file or DNS TXT record), then `verified` with the hash of the read token it issued; the daily re-check
-- keeps `failingSince` (0 while the proof is in place) and `revoked` ends it. No address or anything else
-- about the claimant is stored. Pending claims are deleted a day after they expire.
CREATE TABLE IF NOT EXISTS site_claims
(
    hostname     String,
    challenge    String,
    status       LowCardinality(String),
    method       LowCardinality(String) DEFAULT '',
    tokenHash    String DEFAULT '',
    createdAt    DateTime64(3, 'UTC'),
    expiresAt    DateTime64(3, 'UTC'),
    verifiedAt   DateTime64(3, 'UTC') DEFAULT 0,
    checkedAt    DateTime64(3, 'UTC') DEFAULT 0,
    failingSince DateTime64(3, 'UTC') DEFAULT 0,
    lastReason   String DEFAULT '',
    version      UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (hostname, challenge)
TTL toDateTime(expiresAt) + toIntervalDay(1) DELETE WHERE status = 'pending';
