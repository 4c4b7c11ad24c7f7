/** Record fields in plain words (the popup's tables). The JSON one click away keeps the exact values. */
import type { HandshakeRecord } from '@tlsrum/shared';
import { t } from './i18n';

export function setupLabel(c: HandshakeRecord['handshakeClass']): string {
  return t(
    c === 'full-2rtt' ? 'classFull' : c === '1rtt' ? 'classOneRtt' : c === '0rtt' ? 'classZeroRtt' : 'notVisible',
  );
}

/** The version, and when it came from the site's profile rather than this connection, that it did. */
export function versionLabel(v: HandshakeRecord['tlsVersion'], source?: HandshakeRecord['tlsVersionSource']): string {
  const label = v === '1.3' ? t('tls13') : v === '1.2' ? t('tls12') : t('notVisible');
  return v && source === 'site-profile' ? t('fromSiteProfile', label) : label;
}

export function protocolLabel(p: HandshakeRecord['protocol']): string {
  return p === 'h3' ? 'HTTP/3' : p === 'h2' ? 'HTTP/2' : p === 'http/1.1' ? 'HTTP/1.1' : t('protocolOther');
}

export const ms = (n: number) => t('milliseconds', Math.round(n));
