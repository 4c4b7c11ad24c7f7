/**
 * One plain sentence per finding, for a site owner who is not a TLS expert: what was seen and why it
 * matters. Derived from the result alone, so the command line and the dashboard say the same thing.
 */
import type { ProbeResult } from '@tlsrum/shared';

export type FindingLevel = 'good' | 'warn' | 'bad' | 'info';
export interface Finding {
  level: FindingLevel;
  text: string;
}

export function findings(r: ProbeResult): Finding[] {
  const out: Finding[] = [];
  const say = (level: FindingLevel, text: string) => out.push({ level, text });
  for (const e of r.errors) say('bad', `Could not complete a check — ${e}.`);
  if (r.tls.negotiated.version === null) return out;
  const v = r.tls.versions;
  if (v['1.3']) say('good', 'TLS 1.3 is on: new visitors connect in one round trip.');
  else if (v['1.3'] === false) say('warn', 'TLS 1.3 is off: every new connection needs an extra round trip compared with TLS 1.3.');
  if (v['1.0'] || v['1.1']) say('warn', 'Outdated TLS 1.0/1.1 is still accepted: browsers no longer use it; turning it off removes risk, not speed.');
  const resumes = r.resumption['1.3'] ?? r.resumption['1.2'];
  if (resumes === true) {
    const life = r.resumption.ticketLifetimeS;
    say('good', `Returning visitors resume their session (quicker handshake)${life !== null ? `; tickets are valid for ${humanSeconds(life)}` : ''}.`);
  } else if (resumes === false) say('bad', 'Session resumption does not work: returning visitors pay for a full handshake every time.');
  if (r.earlyData.allowed === true) say('info', 'Tickets allow 0-RTT early data: a returning visitor can send its request with the first packet.');
  else if (r.earlyData.allowed === false && r.resumption['1.3']) say('info', '0-RTT early data is off (a safe default; turning it on saves a round trip for returning visitors).');
  if (r.ocsp.stapled) say('good', 'The certificate status (OCSP) is stapled: browsers need not ask the certificate authority.');
  else if (r.ocsp.stapled === false) say('warn', 'No stapled certificate status (OCSP): some browsers may contact the certificate authority, which can add a delay.');
  const leaf = r.cert.leaf;
  if (leaf) {
    const key = leaf.keyType === 'rsa' ? `RSA-${leaf.keyBits}` : leaf.keyType === 'ecdsa' ? `ECDSA P-${leaf.keyBits}` : leaf.keyType;
    if (leaf.keyType === 'rsa' && (leaf.keyBits ?? 0) > 2048)
      say('warn', `The certificate key is ${key}: the server spends noticeably more time signing each handshake than with ECDSA or RSA-2048.`);
    else say('good', `The certificate key is ${key}: quick to sign.`);
    if (leaf.daysToExpiry < 0) say('bad', `The certificate expired ${-leaf.daysToExpiry} day(s) ago: browsers refuse this site.`);
    else if (leaf.daysToExpiry < 14) say('bad', `The certificate expires in ${leaf.daysToExpiry} day(s): renew it now.`);
    else say('info', `The certificate is valid for ${leaf.daysToExpiry} more days (issued by ${leaf.issuer}).`);
  }
  if (r.cert.chainLength > 2)
    say('warn', `The server sends ${r.cert.chainLength} certificates (${r.cert.chainBytes} bytes): a shorter chain means fewer bytes before the page can start.`);
  else if (r.cert.chainLength > 0) say('good', `The server sends ${r.cert.chainLength} certificate(s), ${r.cert.chainBytes} bytes in all.`);
  if (r.tls.negotiated.alpn === 'h2') say('good', 'HTTP/2 is on.');
  else say('warn', 'HTTP/2 is off: the browser must open several connections for one page.');
  if (r.h3.advertised) say('good', 'HTTP/3 is advertised: browsers can switch to QUIC on later visits.');
  else say('info', 'HTTP/3 is not advertised (no Alt-Svc h3): browsers stay on TCP.');
  if (r.pq.supported === true) say('good', 'Post-quantum key exchange (X25519MLKEM768) is negotiated.');
  else if (r.pq.supported === false) say('info', 'Post-quantum key exchange is not negotiated (the server picked ' + (r.tls.negotiated.group ?? 'another group') + ').');
  else say('info', 'Post-quantum key exchange could not be tested: this probe runs on an OpenSSL older than 3.5 (Node < 24).');
  return out;
}

function humanSeconds(s: number): string {
  if (s >= 86_400 && s % 3_600 === 0) return `${Math.round(s / 3_600)} hours`;
  if (s >= 3_600) return `${Math.round(s / 60)} minutes`;
  return `${s} seconds`;
}
