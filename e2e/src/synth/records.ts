/**
 * One observed connection → the record the collector receives, built with the shared classifier so
 * synthetic and RUM records follow the same rules. The browser's own report (CDP + NetLog, or
 * Firefox's security info) is `observed`; a site's Server-Timing `tls` metric still wins for version
 * and resumption, as in the extension.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import { MAX_TS, MIN_TS } from '@tlsrum/shared/constants';
import {
  classifyHandshake,
  tlsFromServerTiming,
  type ConnectionTiming,
  type HandshakeHistory,
  type SecurityInfo,
} from '@tlsrum/shared/classify';

export interface RecordEnv {
  browser: HandshakeRecord['browser'];
  browserMajor: number;
  os: HandshakeRecord['os'];
  clientToken: string;
}

const TOKEN = /^[A-Za-z0-9_.+-]{1,96}$/;

export function mergeSecurity(observed: SecurityInfo | null, fromSite: SecurityInfo | null): SecurityInfo | null {
  if (!fromSite) return observed;
  if (!observed) return fromSite;
  return {
    ...observed,
    source: 'server-timing',
    tlsVersion: fromSite.tlsVersion ?? observed.tlsVersion ?? null,
    resumed: fromSite.resumed ?? observed.resumed ?? null,
  };
}

export function buildRecord(input: {
  timing: ConnectionTiming;
  connectStartEpochMs: number;
  /** The visited page's hostname: the site the measurement belongs to. */
  site: string | null;
  observed: SecurityInfo | null;
  serverTiming: Array<{ name: string; description: string }>;
  env: RecordEnv;
  /** An earlier handshake with the same origin in the same profile (where the browser cannot say whether it resumed). */
  history?: HandshakeHistory | null;
}): HandshakeRecord {
  const security = mergeSecurity(input.observed, tlsFromServerTiming(input.serverTiming));
  const c = classifyHandshake({ timing: input.timing, security, history: input.history ?? null });
  const record: HandshakeRecord = {
    ts: Math.min(Math.max(Math.round(input.connectStartEpochMs), MIN_TS), MAX_TS),
    site: input.site,
    entryType: input.timing.entryType,
    protocol: c.protocol,
    transport: c.transport,
    tlsVersion: c.tlsVersion,
    tlsVersionSource: c.tlsVersionSource,
    resumed: c.resumed,
    resumedSource: c.resumedSource,
    handshakeClass: c.handshakeClass,
    ...c.phases,
    browser: input.env.browser,
    browserMajor: input.env.browserMajor,
    os: input.env.os,
    source: 'synthetic',
    clientToken: input.env.clientToken,
  };
  if (security?.cipher && TOKEN.test(security.cipher)) record.cipher = security.cipher;
  if (security?.group && TOKEN.test(security.group)) record.group = security.group;
  if (security?.signatureScheme && TOKEN.test(security.signatureScheme)) record.signatureScheme = security.signatureScheme;
  if (typeof security?.certChainLength === 'number' && security.certChainLength >= 0 && security.certChainLength <= 16) {
    record.certChainLength = security.certChainLength;
  }
  return record;
}

export function osOfPlatform(platform: NodeJS.Platform = process.platform): HandshakeRecord['os'] {
  if (platform === 'linux') return 'linux';
  if (platform === 'darwin') return 'macos';
  if (platform === 'win32') return 'windows';
  return 'other';
}

/** "HeadlessChrome/156.0.8078.79", "Chrome/156…", "firefox/153.7.0esr" → 156 / 153. */
export function majorOf(version: string): number {
  const m = /(\d+)\.\d+/.exec(version);
  return m ? Math.min(Number(m[1]), 999) : 0;
}
