/**
 * Firefox only: `webRequest.getSecurityInfo` tells the TLS version, cipher, key exchange group,
 * signature scheme, certificate chain (with each certificate's DER) and ECH use of a request's connection.
 * The leaf's key type and size are read from its DER here, in the background script, never in a page.
 * `usedOcsp` is not read: Firefox sets it when it fetched OCSP itself (`madeOCSPRequests`), which says
 * nothing about the server stapling a response — Firefox records leave `ocspStapled` unknown. It can only be called from a
 * blocking `onHeadersReceived` listener (Firefox restricts it to blocking listeners), so the listener
 * answers at once with `{}` after one IPC round trip. The result is kept briefly, per tab and host,
 * for the content script's timing entry to be joined with it; nothing of it is stored.
 */
import { chainAsSent, leafKey } from '@tlsrum/shared/cert';
import type { SecurityInfo } from '@tlsrum/shared/classify';
import { api } from '../lib/browser';

/** What Firefox's SecurityInfo holds that we read (see MDN webRequest.SecurityInfo). */
export interface FirefoxSecurityInfo {
  state?: string;
  protocolVersion?: string;
  cipherSuite?: string;
  keaGroupName?: string;
  signatureSchemeName?: string;
  /** With `certificateChain`: the chain Firefox built, leaf first, ending at the trust anchor. */
  certificates?: Array<{ rawDER?: number[] }>;
  usedEch?: boolean;
}

/** The certificate facts of a chain whose every DER came along; none when one is missing or malformed. */
export function certificateFacts(
  certs: FirefoxSecurityInfo['certificates'],
): Pick<SecurityInfo, 'certChainLength' | 'certChainBytes' | 'certKeyType' | 'certKeyBits'> {
  if (!Array.isArray(certs) || certs.length === 0 || !certs.every((c) => Array.isArray(c?.rawDER))) return {};
  try {
    const ders = certs.map((c) => Uint8Array.from(c.rawDER!));
    const sent = chainAsSent(ders);
    const key = leafKey(ders[0]!);
    return {
      certChainLength: sent.length,
      certChainBytes: sent.bytes,
      certKeyType: key.type,
      ...(key.bits !== null ? { certKeyBits: key.bits } : {}),
    };
  } catch {
    return {};
  }
}

interface Seen {
  at: number;
  info: SecurityInfo;
}

/** How long an observation waits for its timing entry (the content script reports in idle time). */
const KEEP_MS = 120_000;
const MAX_PER_KEY = 32;

export function fromFirefox(info: FirefoxSecurityInfo): SecurityInfo | null {
  if (info.state !== 'secure' && info.state !== 'weak') return null;
  const version = info.protocolVersion === 'TLSv1.3' ? '1.3' : info.protocolVersion === 'TLSv1.2' ? '1.2' : null;
  return {
    evidence: 'observed',
    tlsVersion: version,
    ...(info.cipherSuite ? { cipher: info.cipherSuite } : {}),
    group: info.keaGroupName ?? null,
    ...(info.signatureSchemeName ? { signatureScheme: info.signatureSchemeName } : {}),
    ...certificateFacts(info.certificates),
    ...(typeof info.usedEch === 'boolean' ? { ech: info.usedEch } : {}),
    // Firefox reports the group of every full handshake: its absence on TLS 1.2 means a ticket resumption.
    reportsKeyExchange: true,
  };
}

export class SecurityInfoCache {
  private readonly byKey = new Map<string, Seen[]>();

  add(tabId: number, host: string, at: number, info: SecurityInfo): void {
    const key = `${tabId} ${host}`;
    const list = this.byKey.get(key) ?? [];
    list.push({ at, info });
    if (list.length > MAX_PER_KEY) list.shift();
    this.byKey.set(key, list);
    this.prune(at);
  }

  /** The observation for this tab and host closest in time to the entry's response start. */
  find(tabId: number, host: string, responseEpochMs: number): SecurityInfo | null {
    const list = this.byKey.get(`${tabId} ${host}`);
    if (!list?.length) return null;
    let best: Seen | null = null;
    for (const s of list) if (!best || Math.abs(s.at - responseEpochMs) < Math.abs(best.at - responseEpochMs)) best = s;
    return best && Math.abs(best.at - responseEpochMs) <= KEEP_MS ? best.info : null;
  }

  private prune(now: number): void {
    for (const [key, list] of this.byKey) {
      const kept = list.filter((s) => now - s.at <= KEEP_MS);
      if (kept.length) this.byKey.set(key, kept);
      else this.byKey.delete(key);
    }
  }
}

type GetSecurityInfo = (
  requestId: string,
  options: { certificateChain?: boolean; rawDER?: boolean },
) => Promise<FirefoxSecurityInfo>;

/**
 * Registers the listener at the top level of the background script, so that Firefox wakes the event
 * page for it. `enabled()` is checked per request: before opt-in or while paused nothing is read.
 */
export function listenForSecurityInfo(cache: SecurityInfoCache, enabled: () => Promise<boolean>): boolean {
  const webRequest = api.webRequest as typeof api.webRequest & { getSecurityInfo?: GetSecurityInfo };
  if (!webRequest || typeof webRequest.getSecurityInfo !== 'function') return false;
  const getSecurityInfo = webRequest.getSecurityInfo.bind(webRequest);
  webRequest.onHeadersReceived.addListener(
    ((details: chrome.webRequest.OnHeadersReceivedDetails) => {
      if (details.tabId < 0) return {};
      return (async () => {
        try {
          if (!(await enabled())) return {};
          const host = new URL(details.url).hostname.toLowerCase();
          const info = fromFirefox(await getSecurityInfo(details.requestId, { certificateChain: true, rawDER: true }));
          if (info) cache.add(details.tabId, host, details.timeStamp, info);
        } catch {
          /* a request that went away; nothing to join */
        }
        return {};
      })();
    }) as unknown as (details: chrome.webRequest.OnHeadersReceivedDetails) => undefined,
    { urls: ['https://*/*'] },
    ['blocking'] as unknown as chrome.webRequest.OnHeadersReceivedOptions[],
  );
  return true;
}
