/**
 * A validated record → a `handshakes` row. The only place where a record meets the request context:
 * the country (already derived from the IP, which goes no further) and the registered-sites check.
 */
import { roundPhase, type HandshakeBatch, type HandshakeRecord } from '@tlsrum/shared';
import { UNKNOWN_COUNTRY } from '../geo/country';

export interface HandshakeRow {
  ts: number;
  receivedAt: number;
  batchId: string;
  site: string;
  country: string;
  entryType: string;
  protocol: string;
  transport: string;
  tlsVersion: string | null;
  tlsVersionSource: string;
  resumed: boolean | null;
  resumedSource: string;
  handshakeClass: string;
  dns: number;
  tcp: number;
  tls: number;
  connect: number;
  ttfb: number;
  cipher: string;
  keyExchangeGroup: string;
  signatureScheme: string;
  certChainLength: number | null;
  browser: string;
  browserMajor: number;
  os: string;
  effectiveType: string;
  rttHint: number | null;
  source: string;
  agentName: string;
  agentVersion: string;
  clientToken: string;
}

export interface RowContext {
  batch: Pick<HandshakeBatch, 'batchId' | 'agent'>;
  country: string;
  receivedAt: number;
  isRegisteredSite: (hostname: string) => boolean;
}

export function toRow(r: HandshakeRecord, ctx: RowContext): HandshakeRow {
  return {
    ts: r.ts,
    // DateTime column: whole seconds.
    receivedAt: Math.floor(ctx.receivedAt / 1000),
    batchId: ctx.batch.batchId.toLowerCase(),
    // Privacy: a hostname is stored only when its site is registered, whatever the client sent.
    site: r.site !== null && ctx.isRegisteredSite(r.site) ? r.site : '',
    country: ctx.country || UNKNOWN_COUNTRY,
    entryType: r.entryType,
    protocol: r.protocol,
    transport: r.transport,
    tlsVersion: r.tlsVersion,
    tlsVersionSource: r.tlsVersionSource,
    resumed: r.resumed,
    resumedSource: r.resumedSource,
    handshakeClass: r.handshakeClass,
    dns: roundPhase(r.dns),
    tcp: roundPhase(r.tcp),
    tls: roundPhase(r.tls),
    connect: roundPhase(r.connect),
    ttfb: roundPhase(r.ttfb),
    cipher: r.cipher ?? '',
    keyExchangeGroup: r.group ?? '',
    signatureScheme: r.signatureScheme ?? '',
    certChainLength: r.certChainLength ?? null,
    browser: r.browser,
    browserMajor: r.browserMajor,
    os: r.os,
    effectiveType: r.effectiveType ?? '',
    rttHint: r.rttHint ?? null,
    source: r.source,
    agentName: ctx.batch.agent.name,
    agentVersion: ctx.batch.agent.version,
    clientToken: r.clientToken,
  };
}
