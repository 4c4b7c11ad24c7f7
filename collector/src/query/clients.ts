/**
 * Distinct clients, counted the same way by every query: cells (raw and rollup), the summary, the what-if
 * and the alert checks. Their main use is small-cell suppression (MIN_CLIENTS_PER_CELL, 20 by default),
 * which must be exact near the threshold and must not differ between the raw table and the rollup, or a
 * cell hidden in one could be read from the other.
 *
 * The count is exact below ROLLUP_CLIENTS_CAP (100) in both tables:
 * - raw table: `uniqCombined64(12)`. Up to 127 distinct values it keeps every 64-bit hash (exact;
 *   test/app/clients.test.ts checks the bound), above it a HyperLogLog (standard error 1.6 %). It is the cheapest
 *   exact-when-small function measured on the cells query (docs/decisions/0007-suppression-and-no-differencing.md: `uniq` costs 2×,
 *   `uniqExact` keeps every token of a large group in memory);
 * - rollups: `uniqUpTo(99)` states, exact up to 99 and 100 meaning "100 or more". A state past 99 clients
 *   is one byte and merges for free, where a HyperLogLog state cost ≈ 18 µs per merged row. The state is
 *   what the rollup stores, so it cannot follow the raw function. It keeps 4 bytes of each token's hash
 *   (ROLLUP_CLIENT_HASH, store/migrations/0020): two tokens alike in those count once, which can only
 *   hide a cell (about one pair in a million states of 100 clients).
 * uniqUpTo on the raw table too would stop the raw table's counts at 100, which the API reports beyond.
 * So both suppress the same cells for every threshold up to 100; a threshold above 100 reads the raw table
 * only (sources.ts): exact up to 127, a HyperLogLog estimate (standard error 1.6 %) above.
 */

/** Distinct client tokens of the rows aggregated, raw table. */
export const RAW_CLIENTS = 'uniqCombined64(12)(clientToken)';

/** The rollup counts clients up to this value and stops there ("this many or more"). */
export const ROLLUP_CLIENTS_CAP = 100;

/** What a rollup's `clients` state keeps of a client token: the low 4 bytes of its cityHash64. */
export const ROLLUP_CLIENT_HASH = 'toUInt32(cityHash64(clientToken) % 4294967296)';

/** Merge of the rollup's `clients` states (`uniqUpToState(99)(ROLLUP_CLIENT_HASH)` in the views). */
export const ROLLUP_CLIENTS = `uniqUpToMerge(${ROLLUP_CLIENTS_CAP - 1})(clients)`;
