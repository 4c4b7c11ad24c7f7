-- `owner`: 1 for a record its site's owner sent with the site's read token (`pnpm synth --token`): a synthetic
-- run of that site, checked at ingest (ingest/steps.ts). The site's own view of source=synthetic reads these
-- rows only and without the people threshold (query/cells.ts; docs/integrity.md says why that is no hole).
-- Every other figure counts them like any synthetic record. Rows stored before this column existed, and
-- spooled segments written without it, read as 0: nobody's own runs.
ALTER TABLE handshakes ADD COLUMN IF NOT EXISTS owner UInt8 DEFAULT 0;
