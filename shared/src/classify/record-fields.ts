/**
 * The parts of a HandshakeRecord that follow from the measurement alone, one implementation for every
 * producer (the extension's background, the synthetic runner): the connection's classification, the
 * security details that fit the schema, and the timestamp. Each producer adds who measured it (site,
 * browser, OS, source, client token).
 */
import type { HandshakeRecord } from '../schema';
import { CERT_KEY_TYPES, MAX_CERT_CHAIN_BYTES, MAX_CERT_KEY_BITS, MAX_TS, MIN_TS } from '../constants';
import { classifyHandshake, type Classification, type HandshakeHistory, type SecurityInfo } from './classify';
import { tlsFromServerTiming } from './server-timing';
import type { ConnectionTiming } from './timing';
import { profileClaims, type SiteProfile } from './site-profile';

/** One new connection as a producer measured it, and who measured it. */
export interface MeasuredConnection {
  timing: ConnectionTiming;
  /** epoch ms of the connection's start: the record's `ts`. */
  connectStartEpochMs: number;
  /** The measured host when it is a registered (extension) or visited (runner) site, else null. */
  site: string | null;
  /** The browser's own report (Firefox's getSecurityInfo, CDP + NetLog), when there is one. */
  observed?: SecurityInfo | null;
  serverTiming?: ReadonlyArray<{ name: string; description: string }> | null;
  /** An earlier handshake with the same host under the same top-level site (see historyKey()). */
  history?: HandshakeHistory | null;
  /** The registered site's profile (`GET /v1/sites`), when the measured host is one. */
  profile?: SiteProfile | null;
  env: Pick<HandshakeRecord, 'browser' | 'browserMajor' | 'os'>;
}

type MeasuredFields = Pick<HandshakeRecord, 'ts' | 'site' | 'entryType' | 'browser' | 'browserMajor' | 'os'> &
  ClassificationFields &
  ReturnType<typeof securityFields>;

/**
 * Everything a record says about the connection and the browser; the producer adds its source, its
 * client token and what only it knows (the extension: network hints).
 */
export function measuredFields(m: MeasuredConnection): { fields: MeasuredFields; classification: Classification } {
  const security = mergeSecurity(m.observed, tlsFromServerTiming(m.serverTiming));
  const profile = m.site ? profileClaims(m.profile, m.env.browser, m.env.browserMajor) : null;
  const classification = classifyHandshake({ timing: m.timing, security, history: m.history ?? null, profile });
  return {
    classification,
    fields: {
      ts: recordTs(m.connectStartEpochMs),
      site: m.site,
      entryType: m.timing.entryType,
      ...classificationFields(classification),
      ...securityFields(security),
      browser: m.env.browser,
      browserMajor: m.env.browserMajor,
      os: m.env.os,
    },
  };
}

/**
 * The site's Server-Timing is the source of truth for version and resumption; the browser's own
 * report still supplies what the site does not state (cipher, group, …).
 */
export function mergeSecurity(
  observed: SecurityInfo | null | undefined,
  fromSite: SecurityInfo | null,
): SecurityInfo | null {
  if (!fromSite) return observed ?? null;
  if (!observed) return fromSite;
  return {
    ...observed,
    evidence: 'server-timing',
    tlsVersion: fromSite.tlsVersion ?? observed.tlsVersion ?? null,
    resumed: fromSite.resumed ?? observed.resumed ?? null,
  };
}

type ClassificationFields = Pick<
  HandshakeRecord,
  | 'protocol'
  | 'transport'
  | 'tlsVersion'
  | 'tlsVersionSource'
  | 'resumed'
  | 'resumedSource'
  | 'handshakeClass'
  | 'dns'
  | 'tcp'
  | 'tls'
  | 'connect'
  | 'ttfb'
>;

export function classificationFields(c: Classification): ClassificationFields {
  return {
    protocol: c.protocol,
    transport: c.transport,
    tlsVersion: c.tlsVersion,
    tlsVersionSource: c.tlsVersionSource,
    resumed: c.resumed,
    resumedSource: c.resumedSource,
    handshakeClass: c.handshakeClass,
    ...c.phases,
  };
}

const TOKEN = /^[A-Za-z0-9_.+-]{1,96}$/;

type SecurityFields = Pick<
  HandshakeRecord,
  | 'cipher'
  | 'group'
  | 'signatureScheme'
  | 'certChainLength'
  | 'certKeyType'
  | 'certKeyBits'
  | 'certChainBytes'
  | 'ocspStapled'
  | 'ech'
>;

const isIntIn = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** The security details that fit the schema; a malformed value is left out, not sent. */
export function securityFields(s: SecurityInfo | null | undefined): Partial<SecurityFields> {
  if (!s) return {};
  const out: Partial<SecurityFields> = {};
  if (s.cipher && TOKEN.test(s.cipher)) out.cipher = s.cipher;
  if (s.group && TOKEN.test(s.group)) out.group = s.group;
  if (s.signatureScheme && TOKEN.test(s.signatureScheme)) out.signatureScheme = s.signatureScheme;
  if (isIntIn(s.certChainLength, 0, 16)) out.certChainLength = s.certChainLength;
  if (s.certKeyType !== undefined && (CERT_KEY_TYPES as readonly string[]).includes(s.certKeyType))
    out.certKeyType = s.certKeyType;
  if (isIntIn(s.certKeyBits, 1, MAX_CERT_KEY_BITS)) out.certKeyBits = s.certKeyBits;
  if (isIntIn(s.certChainBytes, 0, MAX_CERT_CHAIN_BYTES)) out.certChainBytes = s.certChainBytes;
  if (typeof s.ocspStapled === 'boolean') out.ocspStapled = s.ocspStapled;
  if (typeof s.ech === 'boolean') out.ech = s.ech;
  return out;
}

/** An epoch-ms instant as the record's `ts`: whole milliseconds within the schema's range. */
export function recordTs(epochMs: number): number {
  return Math.min(Math.max(Math.round(epochMs), MIN_TS), MAX_TS);
}
