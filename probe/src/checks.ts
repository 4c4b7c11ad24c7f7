/**
 * The probe's checks, each declared once, in the manner of Lighthouse's audits: what it reads from a probe
 * result, what a site owner reads when it passes or fails, the advice and the nginx and the Caddy directive
 * that fixes it, the what-if scenario that prices it, and the change alert its loss raises. The command line's
 * findings (findings.ts), the dashboard's Configuration checklist and the collector's change alerts all read
 * this list, so they cannot disagree.
 *
 * Browser-safe on purpose (types and plain data only, no Node API): the dashboard imports it as
 * `@tlsrum/probe/checks`; an ESLint rule keeps Node modules out of this file.
 *
 * A new check is one entry below. A fact the result does not hold yet also needs its field in `ProbeResult`
 * (shared/src/probe.ts) and its gatherer here in probe/src (called from probe.ts); a new change alert needs
 * its name in PROBE_CHECK_LABELS (shared/src/query/answers.ts), a new price its what-if scenario.
 */
import type { ProbeResult } from '@tlsrum/shared/probe';
import type { ProbeCheckName, ScenarioName } from '@tlsrum/shared/query';

/** pass = done, fail = not done, unknown = not measurable (unreachable, or not testable by this prober). */
export type Verdict = 'pass' | 'fail' | 'unknown';

export interface Reading {
  status: Verdict;
  /** What fills `{detail}` in the check's title or failure title (a key size, a day count, …). */
  detail?: string;
}

/** How the command line marks a sentence: ✓ good, ! warn, ✗ bad, · info. */
export type FindingLevel = 'good' | 'warn' | 'bad' | 'info';

export interface ConfigCheck {
  id: string;
  /** The checklist row's name on the dashboard. */
  label: string;
  /** The sentence when it passes (`{detail}` from the reading). */
  title: string;
  /** The sentence when it fails (`{detail}` from the reading). */
  failureTitle: string;
  /** The sentence when it cannot be measured; null: say nothing. */
  unknownTitle: string | null;
  /** What to do when it fails and why, in plain words. */
  advice: string;
  /** The fix in nginx and in Caddy: the directive (configuration text) first, then a few words. */
  fix: { nginx: string; caddy: string };
  /** The command line's mark per verdict; null: no line for that verdict. */
  level: { pass: FindingLevel | null; fail: FindingLevel };
  /** The what-if scenario that prices turning it on from the site's own field data (null: security, not speed). */
  scenario: ScenarioName | null;
  /** The change alert raised when a probe sees it fail after an earlier probe saw it pass (null: none). */
  lossAlert: { check: ProbeCheckName; summary: string } | null;
  /** Shown as a row of the dashboard's checklist (the others appear in the command line's findings only). */
  checklist: boolean;
  read(r: ProbeResult): Reading;
}

/** A certificate that expires sooner than this is a failed check and a firing alert. */
export const EXPIRY_WARNING_DAYS = 14;

const reached = (r: ProbeResult) => r.tls.negotiated.version !== null;
const flag = (v: boolean | null): Reading => ({ status: v === null ? 'unknown' : v ? 'pass' : 'fail' });

/** The version a browser gets from this server: TLS 1.3 when the server accepts it, else TLS 1.2. */
const browsersVersion = (r: ProbeResult): '1.2' | '1.3' => (r.tls.versions['1.3'] ? '1.3' : '1.2');

function humanSeconds(s: number): string {
  if (s >= 86_400 && s % 3_600 === 0) return `${Math.round(s / 3_600)} hours`;
  if (s >= 3_600) return `${Math.round(s / 60)} minutes`;
  return `${s} seconds`;
}

function keyName(leaf: NonNullable<ProbeResult['cert']['leaf']>): string {
  return leaf.keyType === 'rsa'
    ? `RSA-${leaf.keyBits}`
    : leaf.keyType === 'ecdsa'
      ? `ECDSA P-${leaf.keyBits}`
      : leaf.keyType;
}

export const CONFIG_CHECKS: readonly ConfigCheck[] = [
  {
    id: 'tls13',
    label: 'TLS 1.3',
    title: 'TLS 1.3 is on: new visitors connect in one round trip.',
    failureTitle: 'TLS 1.3 is off: every new connection needs an extra round trip compared with TLS 1.3.',
    unknownTitle: null,
    advice: 'Turn on TLS 1.3: a new visitor connects one round trip sooner than with TLS 1.2.',
    fix: {
      nginx: 'ssl_protocols TLSv1.2 TLSv1.3;',
      caddy: 'protocols tls1.2 tls1.3 in the tls block (TLS 1.3 is on unless a protocols line stops at tls1.2)',
    },
    level: { pass: 'good', fail: 'warn' },
    scenario: 'tls13',
    lossAlert: {
      check: 'probe_tls13_disabled',
      summary: 'TLS 1.3 was turned off: new connections need an extra round trip',
    },
    checklist: true,
    read: (r) => flag(r.tls.versions['1.3']),
  },
  {
    id: 'legacy_versions',
    label: 'TLS 1.0 and 1.1 refused',
    title: 'Outdated TLS 1.0/1.1 is refused.',
    failureTitle:
      'Outdated TLS 1.0/1.1 is still accepted: browsers no longer use it; turning it off removes risk, not speed.',
    unknownTitle: null,
    advice: 'Refuse TLS 1.0 and 1.1: no current browser uses them.',
    fix: {
      nginx: 'ssl_protocols TLSv1.2 TLSv1.3;',
      caddy: 'nothing to do: Caddy never accepts them',
    },
    level: { pass: null, fail: 'warn' },
    scenario: null,
    lossAlert: null,
    checklist: false,
    read: (r) => {
      const old = [r.tls.versions['1.0'], r.tls.versions['1.1']];
      return { status: old.includes(true) ? 'fail' : old.every((v) => v === false) ? 'pass' : 'unknown' };
    },
  },
  {
    id: 'tickets',
    label: 'Session resumption (tickets)',
    title: 'Returning visitors resume their session on {detail}.',
    failureTitle: 'Session resumption does not work on {detail}.',
    unknownTitle: null,
    // What resuming saves depends on the version (docs/whatif.md): a round trip on TLS 1.2; on TLS 1.3 the
    // full handshake is one round trip already, so resuming saves the certificate work, not time on the wire.
    advice:
      'Make session resumption work on the TLS version browsers get from your server (TLS 1.3 when it is on; resuming only TLS 1.2 does not help them): session tickets with keys shared by every server. On TLS 1.2 a returning visitor then connects one round trip sooner; on TLS 1.3 the server skips the certificate signature (less CPU per connection) and 0-RTT early data becomes possible.',
    fix: {
      nginx:
        'ssl_session_tickets on; ssl_session_cache shared:SSL:10m; (several servers: the same ssl_session_ticket_key file on each)',
      caddy:
        'on by default, with ticket keys it rotates itself (remove a session_tickets disabled setting from its JSON config)',
    },
    level: { pass: 'good', fail: 'bad' },
    scenario: 'resumption',
    lossAlert: {
      check: 'probe_resumption_lost',
      summary: 'session resumption stopped working: returning visitors now pay for a full handshake',
    },
    checklist: true,
    read: (r) => {
      const v = browsersVersion(r);
      const resumed = r.resumption[v];
      if (resumed === null) return { status: 'unknown' };
      const life = r.resumption.ticketLifetimeS;
      const on = `TLS ${v}${v === '1.3' ? '' : ' (the newest version this server accepts)'}`;
      const valid = life !== null ? `; tickets are valid for ${humanSeconds(life)}` : '';
      if (resumed)
        return {
          status: 'pass',
          detail:
            v === '1.3'
              ? `${on}${valid}: the server skips the certificate signature for them (less CPU; a TLS 1.3 handshake takes one round trip either way)`
              : `${on}${valid}: they connect in one round trip instead of two`,
        };
      return {
        status: 'fail',
        detail:
          v === '1.3'
            ? `${on}: every returning visitor gets a full handshake, and the server signs again each time (no extra round trip on TLS 1.3, but no 0-RTT either)`
            : `${on}: every returning visitor pays for a full handshake, two round trips instead of one`,
      };
    },
  },
  {
    id: 'zero_rtt',
    label: '0-RTT early data',
    title: 'Tickets allow 0-RTT early data: a returning visitor can send its request with the first packet.',
    failureTitle: '0-RTT early data is off (a safe default; turning it on saves a round trip for returning visitors).',
    unknownTitle: null,
    advice:
      'Allow 0-RTT early data for safe (GET) requests: a returning visitor sends its request without waiting for the handshake.',
    fix: {
      nginx:
        'ssl_early_data on; (and pass Early-Data: $ssl_early_data to the application, so it can refuse requests that must not be replayed)',
      caddy: "not over TCP (Go's TLS has no 0-RTT); over HTTP/3 it is QUIC's to offer",
    },
    level: { pass: 'info', fail: 'info' },
    scenario: 'zero_rtt',
    lossAlert: null,
    checklist: true,
    read: (r) => flag(r.earlyData.allowed),
  },
  {
    id: 'h2',
    label: 'HTTP/2',
    title: 'HTTP/2 is on.',
    failureTitle: 'HTTP/2 is off: the browser must open several connections for one page.',
    unknownTitle: null,
    advice: 'Turn on HTTP/2: one connection carries every request of a page.',
    fix: {
      nginx: 'http2 on; (before nginx 1.25.1: listen 443 ssl http2;)',
      caddy: 'on by default (a protocols line of the global servers option must keep h2)',
    },
    level: { pass: 'good', fail: 'warn' },
    scenario: null,
    lossAlert: null,
    checklist: false,
    read: (r) => ({ status: !reached(r) ? 'unknown' : r.tls.negotiated.alpn === 'h2' ? 'pass' : 'fail' }),
  },
  {
    id: 'h3',
    label: 'HTTP/3 advertised',
    title: 'HTTP/3 is advertised: browsers can switch to QUIC on later visits.',
    failureTitle: 'HTTP/3 is not advertised (no Alt-Svc h3): browsers stay on TCP.',
    unknownTitle: null,
    advice: 'Offer HTTP/3 (an Alt-Svc header): QUIC sets up transport and encryption in one round trip.',
    fix: {
      nginx: 'listen 443 quic reuseport; add_header Alt-Svc \'h3=":443"; ma=86400\'; (nginx 1.25 or later)',
      caddy: 'on by default (keep h3 in the global servers protocols line, and UDP port 443 open)',
    },
    level: { pass: 'good', fail: 'info' },
    scenario: 'http3',
    lossAlert: { check: 'probe_h3_lost', summary: 'HTTP/3 is no longer advertised (Alt-Svc)' },
    checklist: true,
    read: (r) => (reached(r) ? flag(r.h3.advertised) : { status: 'unknown' }),
  },
  {
    id: 'ocsp',
    label: 'OCSP stapling',
    title: 'The certificate status (OCSP) is stapled: browsers need not ask the certificate authority.',
    failureTitle:
      'No stapled certificate status (OCSP): some browsers may contact the certificate authority, which can add a delay.',
    unknownTitle: 'OCSP stapling does not apply here: {detail}.',
    advice:
      "Staple the certificate's OCSP response: browsers that check revocation need not ask the certificate authority.",
    fix: {
      nginx: 'ssl_stapling on; ssl_stapling_verify on; (and a resolver)',
      caddy: 'on by default (remove a global ocsp_stapling off)',
    },
    level: { pass: 'good', fail: 'warn' },
    scenario: 'ocsp_stapled',
    lossAlert: { check: 'probe_ocsp_lost', summary: 'the certificate status (OCSP) is no longer stapled' },
    checklist: true,
    read: (r) => {
      // A certificate that names no OCSP service (self-signed, a private CA, some public authorities) has
      // no status to staple: neither a failure to warn about nor a loss to alert on.
      if (r.ocsp.stapled !== true && r.ocsp.responder === false)
        return {
          status: 'unknown',
          detail:
            'the certificate names no OCSP service to ask (as self-signed and privately issued certificates, and some public ones, do), so there is no certificate status to staple and browsers have none to fetch',
        };
      return flag(r.ocsp.stapled);
    },
  },
  {
    id: 'chain',
    label: 'Certificate chain of at most 2',
    title: 'The server sends {detail}.',
    failureTitle: 'The server sends {detail}: a shorter chain means fewer bytes before the page can start.',
    unknownTitle: null,
    advice:
      'Send only your certificate and its issuer (not the root or a cross-signature): fewer bytes before the page can start.',
    fix: {
      nginx: 'ssl_certificate names a file holding the leaf, then its intermediate, nothing more',
      caddy: 'sends its own certificates that way; with tls cert.pem key.pem, put the same two in cert.pem',
    },
    level: { pass: 'good', fail: 'warn' },
    scenario: 'shorter_chain',
    lossAlert: null,
    checklist: true,
    read: (r) => {
      const { leaf, chainLength: n, chainBytes: bytes } = r.cert;
      if (!leaf) return { status: 'unknown' };
      return n <= 2
        ? { status: 'pass', detail: `${n} certificate(s), ${bytes} bytes in all` }
        : { status: 'fail', detail: `${n} certificates (${bytes} bytes)` };
    },
  },
  {
    id: 'leaf',
    label: 'ECDSA or RSA-2048 certificate key',
    title: 'The certificate key is {detail}: quick to sign.',
    failureTitle:
      'The certificate key is {detail}: the server spends noticeably more time signing each handshake than with ECDSA or RSA-2048.',
    unknownTitle: null,
    advice:
      'Use an ECDSA P-256 certificate (or RSA-2048): larger RSA keys cost the server milliseconds of signing on every full handshake.',
    fix: {
      nginx: 'ssl_certificate / ssl_certificate_key of an ECDSA pair (it may sit beside the RSA one)',
      caddy: 'key_type p256 (the default for the certificates it obtains)',
    },
    level: { pass: 'good', fail: 'warn' },
    scenario: 'ecdsa_leaf',
    lossAlert: null,
    checklist: true,
    read: (r) => {
      const leaf = r.cert.leaf;
      if (!leaf) return { status: 'unknown' };
      const quick =
        leaf.keyType === 'ecdsa' ||
        leaf.keyType === 'ed25519' ||
        (leaf.keyType === 'rsa' && (leaf.keyBits ?? 0) <= 2048);
      return { status: quick ? 'pass' : 'fail', detail: keyName(leaf) };
    },
  },
  {
    id: 'cert_expiry',
    label: `Certificate valid for ${EXPIRY_WARNING_DAYS} days or more`,
    title: 'The certificate is valid for {detail}.',
    failureTitle: 'The certificate {detail}.',
    unknownTitle: null,
    advice: 'Renew the certificate before it expires: browsers refuse an expired one.',
    fix: {
      nginx: 'renew it (e.g. certbot renew), then nginx -s reload',
      caddy:
        'renews its own certificates: check that its storage folder is writable and its log shows no renewal error',
    },
    level: { pass: 'info', fail: 'bad' },
    scenario: null,
    lossAlert: null,
    checklist: false,
    read: (r) => {
      const leaf = r.cert.leaf;
      if (!leaf) return { status: 'unknown' };
      const d = leaf.daysToExpiry;
      if (d >= EXPIRY_WARNING_DAYS) return { status: 'pass', detail: `${d} more days (issued by ${leaf.issuer})` };
      return {
        status: 'fail',
        detail: d < 0 ? `expired ${-d} day(s) ago: browsers refuse this site` : `expires in ${d} day(s): renew it now`,
      };
    },
  },
  {
    id: 'pq',
    label: 'Post-quantum key exchange',
    title: 'Post-quantum key exchange (X25519MLKEM768) is negotiated.',
    failureTitle: 'Post-quantum key exchange is not negotiated (the server picked {detail}).',
    unknownTitle:
      'Post-quantum key exchange could not be tested: this probe runs on an OpenSSL older than 3.5 (Node < 24).',
    advice:
      "Offer the X25519MLKEM768 hybrid key exchange (OpenSSL 3.5+, recent Go, BoringSSL): protects today's traffic against future quantum decryption; no speed change.",
    fix: {
      nginx: 'ssl_ecdh_curve X25519MLKEM768:X25519; (nginx built with OpenSSL 3.5 or later)',
      caddy:
        'on by default when built with Go 1.24 or later (curves x25519mlkem768 x25519 in the tls block, if curves are listed)',
    },
    level: { pass: 'good', fail: 'info' },
    scenario: null,
    lossAlert: null,
    checklist: true,
    read: (r) =>
      r.pq.supported === false
        ? { status: 'fail', detail: r.tls.negotiated.group ?? 'another group' }
        : flag(r.pq.supported),
  },
];

/** The items of the dashboard's checklist, in list order. */
export const CHECKLIST: readonly ConfigCheck[] = CONFIG_CHECKS.filter((c) => c.checklist);

/** The sentence a site owner reads for a reading, or null when the check says nothing for it. */
export function sentence(check: ConfigCheck, reading: Reading): string | null {
  const template =
    reading.status === 'pass' ? check.title : reading.status === 'fail' ? check.failureTitle : check.unknownTitle;
  return template === null ? null : template.replace('{detail}', reading.detail ?? '');
}
