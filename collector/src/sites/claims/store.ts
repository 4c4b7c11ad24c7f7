/**
 * Claims in ClickHouse (`site_claims`, ReplacingMergeTree: a change is a new row with a higher version,
 * read with FINAL), the way the site registry keeps `sites`.
 */
import type { ClickHouseClient } from '@clickhouse/client';

export type ClaimStatus = 'pending' | 'verified' | 'revoked' | 'superseded';
export type ProofMethod = 'well-known' | 'dns';

export interface Claim {
  hostname: string;
  challenge: string;
  status: ClaimStatus;
  method: ProofMethod | '';
  tokenHash: string;
  createdAt: number;
  expiresAt: number;
  verifiedAt: number;
  checkedAt: number;
  /** When the re-checks started failing; 0 while the proof is in place. */
  failingSince: number;
  lastReason: string;
}

const COLUMNS = `hostname, challenge, status, method, tokenHash,
  toUnixTimestamp64Milli(createdAt) AS createdAt, toUnixTimestamp64Milli(expiresAt) AS expiresAt,
  toUnixTimestamp64Milli(verifiedAt) AS verifiedAt, toUnixTimestamp64Milli(checkedAt) AS checkedAt,
  toUnixTimestamp64Milli(failingSince) AS failingSince, lastReason`;

const SETTINGS = { output_format_json_quote_64bit_integers: 0 } as const;

const fromRow = (r: Claim): Claim => ({
  ...r,
  createdAt: Number(r.createdAt),
  expiresAt: Number(r.expiresAt),
  verifiedAt: Number(r.verifiedAt),
  checkedAt: Number(r.checkedAt),
  failingSince: Number(r.failingSince),
});

/** Every version counts: two writes in the same millisecond still order (a process-wide counter). */
let lastVersion = 0;
const nextVersion = () => (lastVersion = Math.max(lastVersion + 1, Date.now() * 1000));

export async function saveClaim(client: ClickHouseClient, claim: Claim): Promise<void> {
  const iso = (ms: number) => new Date(ms).toISOString();
  await client.insert({
    table: 'site_claims',
    values: [
      {
        ...claim,
        createdAt: iso(claim.createdAt),
        expiresAt: iso(claim.expiresAt),
        verifiedAt: iso(claim.verifiedAt),
        checkedAt: iso(claim.checkedAt),
        failingSince: iso(claim.failingSince),
        version: nextVersion(),
      },
    ],
    format: 'JSONEachRow',
    clickhouse_settings: { date_time_input_format: 'best_effort' },
  });
}

async function select(client: ClickHouseClient, where: string, params: Record<string, unknown>): Promise<Claim[]> {
  const rs = await client.query({
    query: `SELECT ${COLUMNS} FROM site_claims FINAL WHERE ${where} ORDER BY hostname, createdAt`,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: SETTINGS,
  });
  return (await rs.json<Claim>()).map(fromRow);
}

/** The claims of one hostname, every status. */
export const claimsOf = (client: ClickHouseClient, hostname: string): Promise<Claim[]> =>
  select(client, 'hostname = {hostname:String}', { hostname });

/** Every verified claim (the re-check's work list). */
export const verifiedClaims = (client: ClickHouseClient): Promise<Claim[]> => select(client, "status = 'verified'", {});

/** Unproven claims not yet expired at `now`, all hostnames. */
export async function countPending(client: ClickHouseClient, now: number): Promise<number> {
  const rs = await client.query({
    query:
      "SELECT count() AS n FROM site_claims FINAL WHERE status = 'pending' AND expiresAt > fromUnixTimestamp64Milli({now:Int64})",
    query_params: { now },
    format: 'JSONEachRow',
    clickhouse_settings: SETTINGS,
  });
  return Number((await rs.json<{ n: number }>())[0]?.n ?? 0);
}
