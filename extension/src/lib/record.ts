/**
 * From one measured connection (+ whatever security information exists) to the record the collector
 * receives. Pure: the background supplies the environment, the site decision and the token.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { EFFECTIVE_TYPES } from '@tlsrum/shared/constants';
import {
  measuredFields,
  type Classification,
  type HandshakeHistory,
  type SecurityInfo,
  type SiteProfile,
} from '@tlsrum/shared/classify';
import type { Measurement, NetworkHints } from '../messages';
import type { Environment } from '@tlsrum/shared/environment';

export interface RecordContext {
  env: Environment;
  /** The measured host when it is a registered site, else null. Decided by the caller. */
  site: string | null;
  clientToken: string;
  network: NetworkHints;
  /** Firefox's getSecurityInfo for this connection, when the background has it. */
  observed?: SecurityInfo | null;
  history?: HandshakeHistory | null;
  /** The registered site's profile (`GET /v1/sites`), when the host is one. */
  profile?: SiteProfile | null;
}

export function buildRecord(
  m: Measurement,
  ctx: RecordContext,
): { record: HandshakeRecord; classification: Classification } {
  const { fields, classification } = measuredFields({
    timing: m.timing,
    connectStartEpochMs: m.startEpochMs,
    site: ctx.site,
    observed: ctx.observed,
    serverTiming: m.serverTiming,
    history: ctx.history,
    profile: ctx.profile ?? null,
    env: ctx.env,
  });
  const effectiveType = (EFFECTIVE_TYPES as readonly string[]).includes(ctx.network.effectiveType ?? '')
    ? (ctx.network.effectiveType as HandshakeRecord['effectiveType'])
    : null;
  const rtt = ctx.network.rttHint;
  const record: HandshakeRecord = {
    ...fields,
    effectiveType,
    rttHint: typeof rtt === 'number' && Number.isInteger(rtt) && rtt >= 0 && rtt <= 10_000 ? rtt : null,
    source: 'rum',
    clientToken: ctx.clientToken,
  };
  return { record, classification };
}
