-- Every rollup keeps its counts, mixes and histogram states with ZSTD. Counts per row are small numbers and
-- histograms (maps or bucket arrays) are runs of small counts and zeros, which LZ4, the default, leaves two
-- to three times as large; reading them back costs the same (docs/cluster.md's disk table has the
-- measurement). The cuts added since 0016 had it for their states; the older rollups, and every rollup's
-- counts, had not. The distinct-client states keep the default: random hashes, which no codec shrinks.
-- Changing a codec rewrites nothing: new parts are written with it, and existing parts take it when a merge
-- rewrites them (OPTIMIZE TABLE … FINAL does it at once). Every statement can run again.

ALTER TABLE handshakes_per_hour
    MODIFY COLUMN records CODEC(ZSTD(3)),
    MODIFY COLUMN evidenced CODEC(ZSTD(3)),
    MODIFY COLUMN inferred CODEC(ZSTD(3)),
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
    MODIFY COLUMN records CODEC(ZSTD(3)),
    MODIFY COLUMN evidenced CODEC(ZSTD(3)),
    MODIFY COLUMN inferred CODEC(ZSTD(3)),
    MODIFY COLUMN mix_handshakeClass CODEC(ZSTD(3)),
    MODIFY COLUMN mix_protocol CODEC(ZSTD(3)),
    MODIFY COLUMN mix_tlsVersion CODEC(ZSTD(3)),
    MODIFY COLUMN mix_mode CODEC(ZSTD(3)),
    MODIFY COLUMN dns_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN tcp_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN tls_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN connect_buckets CODEC(ZSTD(3)),
    MODIFY COLUMN ttfb_buckets CODEC(ZSTD(3));

ALTER TABLE handshakes_crypto_per_day
    MODIFY COLUMN records CODEC(ZSTD(3)),
    MODIFY COLUMN evidenced CODEC(ZSTD(3)),
    MODIFY COLUMN inferred CODEC(ZSTD(3)),
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
    MODIFY COLUMN records CODEC(ZSTD(3)),
    MODIFY COLUMN evidenced CODEC(ZSTD(3)),
    MODIFY COLUMN inferred CODEC(ZSTD(3)),
    MODIFY COLUMN mix_handshakeClass CODEC(ZSTD(3)),
    MODIFY COLUMN mix_protocol CODEC(ZSTD(3)),
    MODIFY COLUMN mix_tlsVersion CODEC(ZSTD(3)),
    MODIFY COLUMN mix_mode CODEC(ZSTD(3)),
    MODIFY COLUMN dns_hist CODEC(ZSTD(3)),
    MODIFY COLUMN tcp_hist CODEC(ZSTD(3)),
    MODIFY COLUMN tls_hist CODEC(ZSTD(3)),
    MODIFY COLUMN connect_hist CODEC(ZSTD(3)),
    MODIFY COLUMN ttfb_hist CODEC(ZSTD(3));

ALTER TABLE handshakes_country_cuts
    MODIFY COLUMN records CODEC(ZSTD(3)),
    MODIFY COLUMN evidenced CODEC(ZSTD(3)),
    MODIFY COLUMN inferred CODEC(ZSTD(3));

ALTER TABLE handshakes_evidence_cuts
    MODIFY COLUMN records CODEC(ZSTD(3)),
    MODIFY COLUMN evidenced CODEC(ZSTD(3)),
    MODIFY COLUMN inferred CODEC(ZSTD(3));

ALTER TABLE handshakes_country_group_cuts
    MODIFY COLUMN records CODEC(ZSTD(3)),
    MODIFY COLUMN evidenced CODEC(ZSTD(3)),
    MODIFY COLUMN inferred CODEC(ZSTD(3));

ALTER TABLE handshakes_signature_cuts
    MODIFY COLUMN records CODEC(ZSTD(3)),
    MODIFY COLUMN evidenced CODEC(ZSTD(3)),
    MODIFY COLUMN inferred CODEC(ZSTD(3));
