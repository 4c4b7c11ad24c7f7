/**
 * The synthetic runner's public types: what `runSynthetic` takes and returns. The accuracy harness
 * (e2e/accuracy) and the CLI both code against these; see e2e/README.md ("Synthetic runner").
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import type { ConnectionKind, ConnectionTiming } from '@tlsrum/shared/classify';

export type SynthBrowser = 'chromium' | 'firefox';
/** cold: a fresh profile per visit (no tickets, no sockets); warm: one profile, a new connection per visit. */
export type SynthMode = 'cold' | 'warm';

export interface SyntheticOptions {
  /** Absolute https:// URLs. Each is visited `runs` times. */
  urls: string[];
  browser?: SynthBrowser;
  mode?: SynthMode;
  /** Visits per URL (warm mode adds one priming visit per URL before them). Default 1. */
  runs?: number;
  /** `socks5://127.0.0.1:PORT`: every TCP connection goes through it (the lab's delaying proxy). */
  proxy?: string;
  /**
   * Name → address overrides, e.g. `{ '*.lab.test': '127.0.0.1' }`. Chromium: --host-resolver-rules;
   * Firefox: network.dns.localDomains (exact names only; a pattern maps the names of `urls` it matches).
   */
  hostResolver?: Record<string, string>;
  /** Only the names in `hostResolver` resolve; everything else fails (keeps tests off the network). */
  blockOtherHosts?: boolean;
  /** PEM file of a CA to trust (Firefox: added to the fresh profile with certutil; Chromium: its SPKI is trusted). */
  caCertPath?: string;
  /** Base64 SHA-256 SPKI hashes of leaf certificates Chromium should accept (--ignore-certificate-errors-spki-list). */
  spkiHashes?: string[];
  /** `host:port` origins to reach over HTTP/3 (QUIC) directly. */
  h3Origins?: string[];
  /** Browser binary (default /usr/bin/chromium or /usr/bin/firefox-esr). */
  executablePath?: string;
  /** Per visit: navigation + network idle (default 30 000 ms). */
  visitTimeoutMs?: number;
  /** The rotating client token put in every record (default: a random one per run). */
  clientToken?: string;
  /** Called with every finished visit and its records (Chromium: once the URL's browser has closed). */
  onVisit?: (visit: VisitResult, done: number, total: number) => void;
  /** Called as soon as a page visit ends (progress bars); `failed` when it did not load. */
  onProgress?: (done: number, total: number, info: { host: string; failed: boolean }) => void;
}

/** What the browser said about one TLS connection, exactly. Local only: never sent. */
export interface ConnectionObservation {
  host: string;
  port: number;
  /** The timing entry's type and URL (local only: the URL never enters a record). */
  entryType: 'navigation' | 'resource';
  url: string;
  kind: ConnectionKind;
  timing: ConnectionTiming;
  /** Epoch ms of the entry's connectStart (performance.timeOrigin + connectStart). */
  connectStartEpochMs: number;
  responseStatus: number | null;
  /** Lower-cased response header names → values, as the browser delivered them. */
  responseHeaders: Record<string, string>;
  /** Server-Timing metrics of the entry (name, description). */
  serverTiming: Array<{ name: string; description: string }>;
  /** Chromium: CDP Network.Response.securityDetails (protocol, cipher, keyExchangeGroup, …). */
  securityDetails: Record<string, unknown> | null;
  /** Chromium: the NetLog socket this response came over (CDP connectionId). */
  netlog: NetLogConnection | null;
  /** Firefox: webRequest.getSecurityInfo of the response (via the runner's helper extension). */
  firefoxSecurityInfo: Record<string, unknown> | null;
  /** The record built for it (kind 'new' only), else null. */
  record: HandshakeRecord | null;
}

/** One socket's TLS handshake as Chromium's NetLog reported it. */
export interface NetLogConnection {
  socketId: number;
  transport: 'tcp' | 'quic';
  isResumed: boolean | null;
  /** "TLS 1.2" / "TLS 1.3" as NetLog spells it. */
  version: string | null;
  cipherSuite: number | null;
  keyExchangeGroup: number | null;
  peerSignatureAlgorithm: number | null;
  nextProto: string | null;
  certificates: number | null;
  /** Base64 DER of each certificate the server sent, leaf first (SSL_CERTIFICATES_RECEIVED). */
  certificateDers: string[] | null;
  /** A stapled OCSP response came with the handshake (its Certificate / CertificateStatus message). */
  ocspStapled: boolean | null;
  /** Encrypted Client Hello accepted (SSL_CONNECT encrypted_client_hello). */
  ech: boolean | null;
  /** TCP: local and remote address of the socket ("127.0.0.1:PORT"); the remote is the proxy when one is used. */
  localAddress: string | null;
  remoteAddress: string | null;
  /** QUIC: early data accepted (0-RTT). */
  earlyDataAccepted?: boolean | null;
}

export interface VisitResult {
  /** Local only. */
  url: string;
  host: string;
  browser: SynthBrowser;
  mode: SynthMode;
  /** 0-based run number; -1 for the warm mode's priming visit. */
  run: number;
  /** Warm mode: the visit that fills the profile with session tickets (its handshakes are full). */
  prime: boolean;
  ok: boolean;
  error?: string;
  startedAt: number;
  records: HandshakeRecord[];
  connections: ConnectionObservation[];
  /** Entries by connection kind: cross-origin without Timing-Allow-Origin are `opaque` (counted, not measured). */
  counts: Record<ConnectionKind, number>;
}

export interface SyntheticResult {
  browser: { name: SynthBrowser; version: string; major: number };
  visits: VisitResult[];
  /** Every record of every visit, in visit order. */
  records: HandshakeRecord[];
  failedVisits: number;
}
