-- Registered sites: only these hostnames are ever stored in handshakes.site or sent by the extension.
CREATE TABLE IF NOT EXISTS sites
(
    hostname  String,
    createdAt DateTime('UTC') DEFAULT now(),
    deleted   UInt8 DEFAULT 0,
    version   UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY hostname;
