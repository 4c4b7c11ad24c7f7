/**
 * The site probe's result (`pnpm probe --json`, the collector's `site_probes` history): one object per URL.
 * A contract other tools rely on — key names and meanings are fixed; docs/probe.md explains each fact.
 *
 * `null` always means "could not be measured" (host unreachable, version refused so nothing to resume,
 * local OpenSSL too old to offer the post-quantum group), never "no". A refused TLS version is `false`.
 */
import { Type, type Static } from 'typebox';
import { CERT_KEY_TYPES } from './constants';

const Ms = (description: string) => Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description });
const Flag = (description: string) => Type.Union([Type.Boolean(), Type.Null()], { description });
const Text = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const PROBE_TLS_VERSIONS = ['1.0', '1.1', '1.2', '1.3'] as const;
export type ProbeTlsVersion = (typeof PROBE_TLS_VERSIONS)[number];
/** The record's certificate key types (constants.ts): one list for records and probes. */
export const LEAF_KEY_TYPES = CERT_KEY_TYPES;

export const ProbeLeaf = Type.Object(
  {
    keyType: Type.Enum([...LEAF_KEY_TYPES]),
    keyBits: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'RSA modulus bits, EC curve bits (P-256 → 256), Ed25519 → 256',
    }),
    signatureAlgorithm: Type.String({
      description: 'of the leaf certificate, e.g. ecdsa-with-SHA256, sha256WithRSAEncryption',
    }),
    issuer: Type.String({ description: "issuer's common name (else its whole distinguished name)" }),
    daysToExpiry: Type.Integer({ description: 'whole days until notAfter; negative once expired' }),
  },
  { additionalProperties: false },
);

export const ProbeResult = Type.Object(
  {
    url: Type.String(),
    host: Type.String(),
    phases: Type.Object(
      {
        dns: Ms('median name lookup, ms (0 with --resolve or an IP address)'),
        tcp: Ms('median TCP connect, ms'),
        tls: Ms('median TLS handshake (ClientHello to Finished), ms'),
        ttfb: Ms('median from request sent to first response byte, ms'),
      },
      { additionalProperties: false },
    ),
    tls: Type.Object(
      {
        versions: Type.Object(
          { '1.0': Flag('accepted'), '1.1': Flag('accepted'), '1.2': Flag('accepted'), '1.3': Flag('accepted') },
          { additionalProperties: false },
        ),
        negotiated: Type.Object(
          {
            version: Type.Union([Type.Enum([...PROBE_TLS_VERSIONS]), Type.Null()]),
            cipher: Text('OpenSSL name, e.g. TLS_AES_128_GCM_SHA256'),
            group: Text('key exchange group, e.g. X25519, X25519MLKEM768, P-256'),
            alpn: Text('h2 or http/1.1; null when the server selects none'),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    pq: Type.Object(
      { supported: Flag('X25519MLKEM768 negotiated; null when the probing OpenSSL cannot offer it') },
      { additionalProperties: false },
    ),
    cert: Type.Object(
      {
        chainLength: Type.Integer({ minimum: 0, description: 'certificates the server sent' }),
        chainBytes: Type.Integer({ minimum: 0, description: 'their total DER size' }),
        leaf: Type.Union([ProbeLeaf, Type.Null()]),
      },
      { additionalProperties: false },
    ),
    ocsp: Type.Object(
      {
        stapled: Flag('a stapled OCSP response came with the handshake'),
        // Optional: probe results stored before this fact was gathered lack it.
        responder: Type.Optional(
          Flag(
            'the leaf certificate names an OCSP responder (Authority Information Access); false: there is no status to staple (self-signed and privately issued certificates, and some public authorities, name none)',
          ),
        ),
      },
      { additionalProperties: false },
    ),
    resumption: Type.Object(
      {
        '1.2': Flag('a second connection offering the first one’s session resumed it'),
        '1.3': Flag('a second connection offering the first one’s ticket resumed it'),
        ticketLifetimeS: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
          description: "the ticket's lifetime hint, seconds",
        }),
      },
      { additionalProperties: false },
    ),
    earlyData: Type.Object(
      { allowed: Flag('the TLS 1.3 ticket allows 0-RTT early data (max_early_data > 0)') },
      { additionalProperties: false },
    ),
    h3: Type.Object(
      {
        advertised: Type.Boolean({ description: 'Alt-Svc offers h3' }),
        altSvc: Text('the Alt-Svc header as received'),
      },
      { additionalProperties: false },
    ),
    errors: Type.Array(Type.String(), { description: 'what could not be measured or failed, each "stage: reason"' }),
  },
  { additionalProperties: false },
);
export type ProbeResult = Static<typeof ProbeResult>;
export type ProbeLeaf = Static<typeof ProbeLeaf>;
