/**
 * Joins what Chromium said about one visit: each timing entry (phases, the same as RUM) to its CDP
 * response (headers, securityDetails, connectionId) and, through the connectionId, to the NetLog
 * socket (is_resumed and the exact negotiated parameters). Cross-origin entries without
 * Timing-Allow-Origin have no timings: they are counted as `opaque` and not measured, even though CDP
 * knows their handshake, so that synthetic and RUM records cover the same connections.
 */
import type { SecurityInfo } from '@tlsrum/shared/classify';
import { connectionKindOf, type ConnectionKind } from '@tlsrum/shared/classify';
import type { CdpResponse, RawChromiumVisit } from './chromium';
import { cdpCipherName, cdpGroupName, cipherSuiteName, groupName, signatureSchemeName, tlsVersionOf } from './names';
import { certFacts } from './cert-facts';
import { observeEntry } from './page-entries';
import type { RecordEnv } from './records';
import type { ConnectionObservation, NetLogConnection, SynthMode, VisitResult } from './types';
import { siteOf } from './site';

export function observeChromiumVisit(
  raw: RawChromiumVisit,
  sockets: Map<number, NetLogConnection>,
  mode: SynthMode,
  env: RecordEnv,
): VisitResult {
  const site = siteOf(raw.url);
  const unused = [...raw.responses];
  const counts: Record<ConnectionKind, number> = { new: 0, reused: 0, opaque: 0, insecure: 0, invalid: 0 };
  const connections: ConnectionObservation[] = [];
  for (const entry of raw.entries) {
    const kind = connectionKindOf(entry);
    counts[kind]++;
    const response = takeResponse(unused, entry.url);
    const socket = response?.connectionId != null ? (sockets.get(response.connectionId) ?? null) : null;
    const observed = securityOf(socket, response);
    connections.push(
      observeEntry({
        entry,
        kind,
        site,
        env,
        response,
        observed,
        browserReport: {
          securityDetails: response?.securityDetails ?? null,
          netlog: socket,
          firefoxSecurityInfo: null,
        },
      }),
    );
  }
  const records = connections.flatMap((c) => (c.record ? [c.record] : []));
  let error = raw.error;
  if (!error && !raw.entries.some((e) => e.timing.entryType === 'navigation'))
    error = 'the page has no navigation timing entry';
  return {
    url: raw.url,
    host: new URL(raw.url).hostname,
    browser: 'chromium',
    mode,
    run: raw.run,
    prime: raw.prime,
    ok: !error,
    ...(error ? { error } : {}),
    startedAt: raw.startedAt,
    records,
    connections,
    counts,
  };
}

function takeResponse(unused: CdpResponse[], url: string): CdpResponse | null {
  const i = unused.findIndex((r) => r.url === url);
  if (i < 0) return null;
  return unused.splice(i, 1)[0] ?? null;
}

/** NetLog first (exact code points and is_resumed), CDP securityDetails for what the NetLog lacks. */
export function securityOf(socket: NetLogConnection | null, response: CdpResponse | null): SecurityInfo | null {
  const details = response?.securityDetails ?? null;
  if (!socket && !details) return null;
  const info: SecurityInfo = { evidence: 'observed' };
  const version =
    tlsVersionOf(socket?.version) ?? tlsVersionOf(typeof details?.protocol === 'string' ? details.protocol : null);
  if (version) info.tlsVersion = version;
  if (typeof socket?.isResumed === 'boolean') info.resumed = socket.isResumed;
  if (socket?.cipherSuite != null) info.cipher = cipherSuiteName(socket.cipherSuite);
  else if (typeof details?.cipher === 'string') info.cipher = cdpCipherName(details.cipher, version);
  if (socket?.keyExchangeGroup) info.group = groupName(socket.keyExchangeGroup);
  else if (typeof details?.keyExchangeGroup === 'string' && details.keyExchangeGroup)
    info.group = cdpGroupName(details.keyExchangeGroup);
  if (socket?.peerSignatureAlgorithm) info.signatureScheme = signatureSchemeName(socket.peerSignatureAlgorithm);
  if (socket?.certificates != null) info.certChainLength = socket.certificates;
  // The NetLog's certificates are the chain as the server sent it.
  Object.assign(info, certFacts(socket?.certificateDers ?? null, 'sent'));
  if (socket?.ocspStapled != null) info.ocspStapled = socket.ocspStapled;
  if (socket?.ech != null) info.ech = socket.ech;
  else if (typeof details?.encryptedClientHello === 'boolean') info.ech = details.encryptedClientHello;
  return info;
}
