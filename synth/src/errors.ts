/** A navigation error → one line a site owner understands (Chromium's and Firefox's net error names). */
const HINTS: Record<string, string> = {
  // Chromium (net::ERR_…)
  ERR_NAME_NOT_RESOLVED: 'the host name does not resolve',
  ERR_CONNECTION_REFUSED: 'nothing listens on that port',
  ERR_CONNECTION_TIMED_OUT: 'the server did not answer',
  ERR_CERT_AUTHORITY_INVALID:
    'certificate not trusted: pass --ca with the CA certificate that signed it (and the server must send any intermediate), or --spki with the SPKI hash of the server certificate itself',
  ERR_CERT_COMMON_NAME_INVALID: 'certificate does not match the host name',
  ERR_SSL_PROTOCOL_ERROR: 'TLS handshake failed',
  ERR_PROXY_CONNECTION_FAILED: 'the proxy is unreachable',
  ERR_SOCKS_CONNECTION_FAILED: 'the SOCKS proxy could not connect',
  ERR_UNSAFE_PORT: 'browsers refuse this port',
  // Firefox (NS_ERROR_…)
  NS_ERROR_CONNECTION_REFUSED: 'nothing listens on that port',
  NS_ERROR_UNKNOWN_HOST: 'the host name does not resolve',
  NS_ERROR_NET_TIMEOUT: 'the server did not answer',
  NS_ERROR_PROXY_CONNECTION_REFUSED: 'the proxy is unreachable',
  // Firefox names none of its certificate errors over WebDriver BiDi: every one arrives as this code.
  NS_ERROR_GENERATE_FAILURE:
    'Firefox refused the connection for a security reason it does not name here, most often the certificate: for a private CA or a self-signed certificate pass it with --ca FILE.pem (the CA that signed the server certificate, or the self-signed certificate itself); check that it names this host and has not expired; opening the URL in a desktop Firefox shows the exact reason',
};

export function describeNavigationError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const code = /(NS_ERROR_[A-Z_]+)/.exec(msg)?.[1] ?? /net::(ERR_[A-Z_]+)/.exec(msg)?.[1];
  if (code) return `unreachable: ${code}${HINTS[code] ? ` (${HINTS[code]})` : ''}`;
  if (/timeout/i.test(msg)) return `timeout: ${msg.split('\n')[0]}`;
  return msg.split('\n')[0] ?? 'navigation failed';
}
