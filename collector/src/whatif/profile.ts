/**
 * The site's latest probe as the what-if's profile scenarios need it (model.ts CertFacts): only the
 * site's own hostname counts (extra hostnames serve other resources), and only a probe that reached it.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { WhatIfAnswer } from '@tlsrum/shared/query/schemas';
import { latestProbe } from '../probes/store';
import type { CertFacts } from './model';

export type ProfileUsed = NonNullable<WhatIfAnswer['probe']>;

export async function probeCertFacts(
  client: ClickHouseClient,
  site: string | null,
): Promise<{ profile: CertFacts; used: ProfileUsed } | null> {
  if (site === null) return null;
  const p = await latestProbe(client, site, site);
  const leaf = p?.result.cert.leaf;
  if (!p || !leaf) return null;
  const profile: CertFacts = {
    // No OCSP service named by the certificate: nothing to staple, so the stapling scenario does not apply.
    ocspStapled: p.result.ocsp.responder === false && p.result.ocsp.stapled === false ? null : p.result.ocsp.stapled,
    leafKeyType: leaf.keyType,
    leafKeyBits: leaf.keyBits,
    chainLength: p.result.cert.chainLength,
    chainBytes: p.result.cert.chainBytes,
  };
  return { profile, used: { at: p.at, ...profile } };
}
