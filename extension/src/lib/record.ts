/**
 * From one measured connection (+ whatever security information exists) to the record the collector
 * receives. Pure: the background supplies the environment, the site decision and the token.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { EFFECTIVE_TYPES, MAX_TS, MIN_TS } from '@tlsrum/shared/constants';
import {
  classifyHandshake,
  tlsFromServerTiming,
  type Classification,
  type HandshakeHistory,
  type SecurityInfo,
} from '@tlsrum/shared/classify';
import type { Measurement, NetworkHints } from '../messages';
import type { Environment } from './environment';

export interface RecordContext {
  env: Environment;
  /** The measured host when it is a registered site, else null. Decided by the caller. */
  site: string | null;
  clientToken: string;
  network: NetworkHints;
  /** Firefox's getSecurityInfo for this connection, when the background has it. */
  observed?: SecurityInfo | null;
  history?: HandshakeHistory | null;
}

/**
 * The site's Server-Timing is the source of truth for version and resumption; the browser's own
 * report still supplies what the site does not state (cipher, group, …).
 */
export function mergeSecurity(observed: SecurityInfo | null | undefined, fromSite: SecurityInfo | null): SecurityInfo | null {
  if (!fromSite) return observed ?? null;
  if (!observed) return fromSite;
  return {
    ...observed,
    source: 'server-timing',
    tlsVersion: fromSite.tlsVersion ?? observed.tlsVersion ?? null,
    resumed: fromSite.resumed ?? observed.resumed ?? null,
  };
}

export function buildRecord(m: Measurement, ctx: RecordContext): { record: HandshakeRecord; classification: Classification } {
  const security = mergeSecurity(ctx.observed, tlsFromServerTiming(m.serverTiming));
  const classification = classifyHandshake({ timing: m.timing, security, history: ctx.history ?? null });
  const effectiveType = (EFFECTIVE_TYPES as readonly string[]).includes(ctx.network.effectiveType ?? '')
    ? (ctx.network.effectiveType as HandshakeRecord['effectiveType'])
    : null;
  const rtt = ctx.network.rttHint;
  const record: HandshakeRecord = {
    ts: Math.min(Math.max(Math.round(m.startEpochMs), MIN_TS), MAX_TS),
    site: ctx.site,
    entryType: m.timing.entryType,
    protocol: classification.protocol,
    transport: classification.transport,
    tlsVersion: classification.tlsVersion,
    tlsVersionSource: classification.tlsVersionSource,
    resumed: classification.resumed,
    resumedSource: classification.resumedSource,
    handshakeClass: classification.handshakeClass,
    ...classification.phases,
    ...detail(security),
    browser: ctx.env.browser,
    browserMajor: ctx.env.browserMajor,
    os: ctx.env.os,
    effectiveType,
    rttHint: typeof rtt === 'number' && Number.isInteger(rtt) && rtt >= 0 && rtt <= 10_000 ? rtt : null,
    source: 'rum',
    clientToken: ctx.clientToken,
  };
  return { record, classification };
}

const TOKEN = /^[A-Za-z0-9_.+-]{1,96}$/;

/** Firefox's detail fields, only when they fit the schema (a malformed value is left out, not sent). */
function detail(s: SecurityInfo | null): Partial<HandshakeRecord> {
  if (!s) return {};
  const out: Partial<HandshakeRecord> = {};
  if (s.cipher && TOKEN.test(s.cipher)) out.cipher = s.cipher;
  if (s.group && TOKEN.test(s.group)) out.group = s.group;
  if (s.signatureScheme && TOKEN.test(s.signatureScheme)) out.signatureScheme = s.signatureScheme;
  if (typeof s.certChainLength === 'number' && Number.isInteger(s.certChainLength) && s.certChainLength >= 0 && s.certChainLength <= 16) {
    out.certChainLength = s.certChainLength;
  }
  return out;
}
