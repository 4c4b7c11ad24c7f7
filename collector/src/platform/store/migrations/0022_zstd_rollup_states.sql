-- The older rollups keep their states with ZSTD, like the cuts added since (0016–0018, 0021): histogram
-- maps and bucket arrays are runs of small counts and zeros that LZ4, the default, leaves up to twice as
-- large, and reading them back costs the same (docs/cluster.md's disk table has the measurement). The
-- distinct-client states keep the default: random hashes, which no codec shrinks.
-- Changing a codec rewrites nothing: new parts are written with it, and existing parts take it when a merge
-- rewrites them (OPTIMIZE TABLE … FINAL does it at once). Every statement can run again.

ALTER TABLE handshakes_per_hour
    MODIFY COLUMN mix_handshakeClass CODEC(ZSTD(3)),
    MODIFY COLUMN mix_protocol CODEC(ZSTD(3)),
    MODIFY COLUMN mix_tlsVersion CODEC(ZSTD(3)),
    MODIFY COLUMN mix_mode CODEC(ZSTD(3)),
    MODIFY COLUMN dns_hist CODEC(ZSTD(3)),
    MODIFY COLUMN tcp_hist CODEC(ZSTD(3)),
    MODIFY COLUMN tls_hist CODEC(ZSTD(3)),
    MODIFY COLUMN connect_hist CODEC(ZSTD(3)),
    MODIFY COLUMN ttfb_hist CODEC(ZSTD(3));

ALTER TABLE handshakes_cuts
    MODIFY COLUMN mix_handshakeClass CODEC(ZSTD(3)),
    MODIFY COLUMN mix_protocol CODEC(ZSTD(3)),
    MODIFY COLUMN mix_tlsVersion CODEC(ZSTD(3)),
    MODIFY COLUMN mix_mode CODEC(ZSTD(3)),
    MODIFY COLUMN dns_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN tcp_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN tls_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN connect_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN ttfb_buckets CODEC(ZSTD(3));

ALTER TABLE handshakes_crypto_cuts
    MODIFY COLUMN mix_handshakeClass CODEC(ZSTD(3)),
    MODIFY COLUMN mix_protocol CODEC(ZSTD(3)),
    MODIFY COLUMN mix_tlsVersion CODEC(ZSTD(3)),
    MODIFY COLUMN mix_mode CODEC(ZSTD(3)),
    MODIFY COLUMN dns_hist CODEC(ZSTD(3)),
    MODIFY COLUMN tcp_hist CODEC(ZSTD(3)),
    MODIFY COLUMN tls_hist CODEC(ZSTD(3)),
    MODIFY COLUMN connect_hist CODEC(ZSTD(3)),
    MODIFY COLUMN ttfb_hist CODEC(ZSTD(3));

ALTER TABLE handshakes_crypto_per_day
    MODIFY COLUMN mix_handshakeClass CODEC(ZSTD(3)),
    MODIFY COLUMN mix_protocol CODEC(ZSTD(3)),
    MODIFY COLUMN mix_tlsVersion CODEC(ZSTD(3)),
    MODIFY COLUMN mix_mode CODEC(ZSTD(3)),
    MODIFY COLUMN dns_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN tcp_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN tls_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN connect_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN ttfb_buckets CODEC(ZSTD(3));
