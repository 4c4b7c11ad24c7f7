/**
 * The handshake record, version 1: the single source of validation (collector) and types (everyone).
 *
 * Every object is closed (`additionalProperties: false`): the collector's validator is configured to
 * *remove* unknown properties rather than reject them, so newer clients can add fields without breaking
 * older collectors, and nothing we did not design for is ever stored. Every string and number is
 * bounded. The descriptions here are the field documentation: docs/record-fields.md is generated from them
 * (`pnpm docs:fields`).
 */
import { Type, type Static, type TEnum } from 'typebox';
// Re-exported for modules that read it from the schema (hostname.ts); defined in constants.ts so the
// extension can use it without TypeBox.
export { HOSTNAME_PATTERN } from './constants';
import {
  BROWSERS,
  CERT_KEY_TYPES,
  MAX_CERT_CHAIN_BYTES,
  MAX_CERT_KEY_BITS,
  EFFECTIVE_TYPES,
  ENTRY_TYPES,
  HANDSHAKE_CLASSES,
  MAX_PHASE_MS,
  MAX_RECORDS_PER_BATCH,
  MAX_TS,
  MIN_TS,
  OSES,
  PROTOCOLS,
  RECORD_SOURCES,
  SCHEMA_VERSION,
  TLS_VERSIONS,
  TRANSPORTS,
  EVIDENCE_SOURCES,
  HOSTNAME_PATTERN,
} from './constants';

/** A closed set of strings, from the `as const` arrays in constants.ts. */
const oneOf = <T extends readonly string[]>(values: T, description: string): TEnum<[...T]> =>
  Type.Enum<[...T]>([...values], { description });

export const Hostname = Type.String({ minLength: 1, maxLength: 253, pattern: HOSTNAME_PATTERN });

/** A phase duration in milliseconds (0.1 ms resolution: senders and the collector round to it). */
const Phase = (description: string) => Type.Number({ minimum: 0, maximum: MAX_PHASE_MS, description });

/** Identifier-like token such as a cipher suite or group name from Firefox's security info. */
const Token = (description: string) =>
  Type.String({ minLength: 1, maxLength: 96, pattern: '^[A-Za-z0-9_.+-]+$', description });

export const EpochMs = Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'Epoch milliseconds (UTC).' });

export const HandshakeRecord = Type.Object(
  {
    ts: Type.Integer({
      minimum: MIN_TS,
      maximum: MAX_TS,
      description: 'When the connection started (the collector refuses a record more than 24 h from its clock).',
    }),
    site: Type.Union([Hostname, Type.Null()], {
      description:
        'The registered site (GET /v1/sites) the connection belongs to, lower case; null for any site that is not registered. Never a path, a query or a port.',
    }),
    entryType: oneOf(ENTRY_TYPES, 'Which timing entry measured the connection.'),
    protocol: oneOf(PROTOCOLS, 'nextHopProtocol, normalised (h3-29 becomes h3).'),
    transport: oneOf(TRANSPORTS, 'quic exactly when protocol is h3, else tcp.'),
    tlsVersion: Type.Union([oneOf(TLS_VERSIONS, 'TLS version'), Type.Null()], {
      description: 'The negotiated TLS version; null when nothing tells.',
    }),
    tlsVersionSource: oneOf(EVIDENCE_SOURCES, 'How tlsVersion is known (the evidence sources: shared/README.md).'),
    resumed: Type.Union([Type.Boolean(), Type.Null()], {
      description: 'Whether the TLS session was resumed; null when nothing tells.',
    }),
    resumedSource: oneOf(EVIDENCE_SOURCES, 'How resumed is known.'),
    handshakeClass: oneOf(HANDSHAKE_CLASSES, 'Round trips the TLS handshake cost before the request could leave.'),
    dns: Phase('DNS lookup, ms: domainLookupEnd − domainLookupStart.'),
    tcp: Phase('TCP handshake, ms: secureConnectionStart − connectStart; 0 for QUIC.'),
    tls: Phase('TLS handshake, ms: connectEnd − secureConnectionStart; the whole QUIC handshake for h3.'),
    connect: Phase('Connection set-up, ms: connectEnd − connectStart.'),
    ttfb: Phase('Time to first byte, ms: responseStart − requestStart.'),
    cipher: Type.Optional(Token('Cipher suite, e.g. TLS_AES_128_GCM_SHA256 (Firefox, synthetic runner).')),
    group: Type.Optional(Token('Key exchange group, e.g. X25519MLKEM768 (Firefox, synthetic runner).')),
    signatureScheme: Type.Optional(Token("The server's signature scheme (Firefox).")),
    certChainLength: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 16, description: 'Certificates the server sent (Firefox).' }),
    ),
    certKeyType: Type.Optional(
      oneOf(
        CERT_KEY_TYPES,
        'Public-key algorithm of the leaf certificate, from its SubjectPublicKeyInfo (Firefox: parsed from rawDER in the background script; synthetic runner).',
      ),
    ),
    certKeyBits: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_CERT_KEY_BITS,
        description:
          "The leaf's key size in bits: RSA modulus bits (2048, 4096), EC curve bits (256 = P-256, 384, 521), 256 for Ed25519.",
      }),
    ),
    certChainBytes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_CERT_CHAIN_BYTES,
        description:
          'DER bytes of every certificate the server sent, summed (Firefox certificateChain; synthetic runner).',
      }),
    ),
    ocspStapled: Type.Optional(
      Type.Boolean({ description: 'The server stapled an OCSP response (Firefox usedOcsp; synthetic runner).' }),
    ),
    ech: Type.Optional(Type.Boolean({ description: 'Encrypted Client Hello was used (Firefox usedEch).' })),
    browser: oneOf(BROWSERS, 'Browser family.'),
    browserMajor: Type.Integer({ minimum: 0, maximum: 999, description: 'Browser major version.' }),
    os: oneOf(OSES, 'Operating system family.'),
    effectiveType: Type.Optional(
      Type.Union([oneOf(EFFECTIVE_TYPES, 'Network Information effectiveType'), Type.Null()], {
        description: 'navigator.connection.effectiveType where the browser exposes it (Chromium).',
      }),
    ),
    rttHint: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()], {
        description: 'navigator.connection.rtt in ms where exposed (rounded to 25 ms by the browser).',
      }),
    ),
    source: oneOf(
      RECORD_SOURCES,
      "rum for the extension's real users, page for a site's own beacon on its pages, synthetic for the lab and the synthetic runner.",
    ),
    clientToken: Type.String({
      minLength: 8,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'Random token that rotates daily; used only to count distinct clients and to suppress small cells.',
    }),
  },
  { additionalProperties: false, description: 'One new TLS connection, as measured by one client.' },
);
export type HandshakeRecord = Static<typeof HandshakeRecord>;

export const Agent = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.@/-]+$' }),
    version: Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9_.+-]+$' }),
  },
  {
    additionalProperties: false,
    description: 'What produced the batch (tlsrum-extension, tlsrum-synth, …) and its version.',
  },
);
export type Agent = Static<typeof Agent>;

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const HandshakeBatch = Type.Object(
  {
    v: Type.Literal(SCHEMA_VERSION, { description: 'Schema version.' }),
    batchId: Type.String({
      pattern: UUID_PATTERN,
      description: 'Idempotency key: a client that resends a batch reuses its id, and the collector stores it once.',
    }),
    sentAt: Type.Integer({
      minimum: MIN_TS,
      maximum: MAX_TS,
      description: 'When the client sent (or first tried to send) the batch.',
    }),
    agent: Agent,
    records: Type.Array(HandshakeRecord, {
      minItems: 1,
      maxItems: MAX_RECORDS_PER_BATCH,
      description: 'The records, each one new TLS connection.',
    }),
  },
  { additionalProperties: false, description: 'Records sent together by one client.' },
);
export type HandshakeBatch = Static<typeof HandshakeBatch>;
