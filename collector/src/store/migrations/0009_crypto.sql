-- The crypto lens (issue 19): the leaf certificate's key, the chain's size, OCSP stapling and ECH
-- (record fields of the same names, shared/README.md), and where the crypto facts of a row come from.
-- Rows stored before these columns existed read as '' / NULL: unknown, never a guess.
-- cryptoSource: 'observed' when the client reported them for this connection (Firefox getSecurityInfo,
-- the synthetic runner), 'probe' when the collector filled them from the site's latest TLS probe
-- (a Chromium record of a registered site: Chromium tells extensions nothing about TLS), '' when none.
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS certKeyType LowCardinality(String) DEFAULT '';
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS certKeyBits Nullable(UInt16);
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS certChainBytes Nullable(UInt32);
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS ocspStapled Nullable(Bool);
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS ech Nullable(Bool);
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS cryptoSource LowCardinality(String) DEFAULT '';
