/**
 * Round-trip accounting and what-if, pure: measured connections of one region in, the round trips they
 * spend today and what their time to first byte would become under each scenario out.
 *
 * Time to first byte of a new connection = dns + set-up before the request can leave + ttfb, where the
 * set-up is the measured `connect` (for 0-RTT: only the TCP part, since the request rides with the
 * handshake). A scenario changes only how many round trips the set-up costs; each connection saves
 * (round trips today − round trips in the scenario) × its path RTT, everything else (DNS, server time,
 * crypto CPU, the response) stays as measured. The path RTT is the connection's own TCP handshake time
 * (TCP costs exactly one round trip); QUIC connections have none and take the region's median TCP time.
 * Percentiles are then taken over the region's own, shifted, distribution.
 */
import { HANDSHAKE_CLASSES, type HandshakeClass } from '@tlsrum/shared';
import { SCENARIOS, type ScenarioName } from '@tlsrum/shared/query';
import type { WhatIfAccounting, WhatIfResult, WhatIfScenario } from '@tlsrum/shared/query/schemas';
import { median, quantilesInPlace } from './order-statistics';
import { runNow, SLICE, type Work } from '../platform/work';

export interface Connection {
  dns: number;
  tcp: number;
  tls: number;
  connect: number;
  ttfb: number;
  transport: 'tcp' | 'quic';
  tlsVersion: '1.2' | '1.3' | null;
  handshakeClass: HandshakeClass;
  resumed: boolean | null;
  /** The same client connected to the same site earlier within the ticket lifetime. */
  repeat: boolean;
  /** The record's browser family (the OCSP scenario: only browsers that check revocation online); absent = unknown. */
  browser?: string;
  /**
   * The connection's own crypto facts (the field split: Firefox and the synthetic runner observe them,
   * Chromium records of a registered site carry the site's probe's from ingest): each known one is used
   * in place of the site probe's (connectionCertFacts). Absent or null fields: unknown.
   */
  crypto?: Partial<CertFacts>;
}

/**
 * The certificate facts the three profile scenarios need (stapling, leaf key, chain): the site's as its latest
 * probe saw them (probe/, `site_probes`), or a connection's own. Not the record's site profile (shared
 * classify/site-profile.ts). The scenarios change something the field data cannot see, so they need it.
 * Null: no probe yet (or every site).
 */
export interface CertFacts {
  ocspStapled: boolean | null;
  leafKeyType: 'rsa' | 'ecdsa' | 'ed25519' | 'other' | null;
  leafKeyBits: number | null;
  chainLength: number;
  chainBytes: number;
}

export { SCENARIOS, type ScenarioName };

export const ASSUMPTIONS: Record<ScenarioName, string> = {
  tls13:
    'Every full TLS 1.2 handshake (2 round trips before the request) becomes a full TLS 1.3 handshake (1 round trip). Resumed and TLS 1.3 handshakes are unchanged.',
  resumption:
    'Every repeat connection (the same client token connected to the site earlier within the ticket lifetime) that did a full handshake resumes instead: a handshake of 2 round trips (TLS 1.2 full, or TLS 1.3 with a HelloRetryRequest) drops to 1; TLS 1.3 resumption costs 1 round trip like a full TLS 1.3 handshake, so there it saves CPU and bytes but no round trip.',
  zero_rtt:
    'Every repeat connection sends its request as TLS 1.3 / QUIC 0-RTT early data: no round trip for the TLS handshake before the request (TCP keeps its 1). Only safe for idempotent requests: servers accept early data for GET-like requests only (RFC 8470).',
  http3:
    "Every TCP connection becomes QUIC: TCP + TLS round trips are replaced by the QUIC handshake's, taken from the region's own HTTP/3 connections (median of their handshake time ÷ RTT) when it has enough of them, else 1 round trip. Already-HTTP/3 connections are unchanged; no 0-RTT.",
  combined_handshake:
    'Transport and crypto handshakes are combined into one round trip over TCP (as TCP Fast Open + TLS 1.3 or TCPLS-style research prototypes propose): any connection spending more than 1 round trip before its request spends 1.',
  ocsp_stapled:
    "Uses each connection's own record (the field split: a stapling fact comes from the synthetic runner and, for Chromium records, from the site's probe), else the site's probe profile; applies where no OCSP response was stapled and the certificate names an OCSP service (a certificate naming none has no status to staple, and no browser fetches one for it). A browser that checks revocation online (Firefox; Chromium never fetches OCSP) then asks the CA's responder on a client's first connection: a new connection and one request, 2 round trips, counted at the client's own RTT as a stand-in for the responder's; later connections use the cached answer. Stapling removes it. Firefox skips the fetch for certificates its CRLite data covers, so this is an upper bound.",
  ecdsa_leaf:
    "Uses each connection's own record (the field split: Firefox reads the leaf key, Chromium records carry the site's probe's), else the site's probe profile; applies where the leaf key is RSA. Every full (not resumed) handshake saves the server's signing time: RSA-2048 0.3 ms, RSA-3072 2.1 ms, RSA-4096 4.3 ms against ECDSA P-256 0.02 ms (openssl speed, one core of the lab's AMD EPYC, unloaded; a busy server queues handshakes, so the real saving can be larger). The smaller certificate and signature save about 300–500 bytes, not counted.",
  shorter_chain:
    "Uses each connection's own record (the field split: certificates sent and their bytes from Firefox, the synthetic runner, or the site's probe for Chromium), else the site's probe profile; applies where the server sends more than 2 certificates. The server's first flight is counted as the chain plus 1 200 bytes of other handshake messages; over TCP a flight above the initial congestion window (10 × 1 460 bytes) costs one more round trip, over QUIC a flight above 3 × 1 200 bytes (the anti-amplification limit before the client's address is validated) does. Sending only the leaf and its issuer (the chain × 2 ÷ its length, certificates assumed of equal size) removes that round trip where it brings the flight under the limit. Resumed handshakes send no certificates and are unchanged.",
};

/** Server signing time per full handshake by leaf key, ms (openssl speed on the lab machine, see ASSUMPTIONS.ecdsa_leaf). */
export const SIGN_MS: Record<string, number> = {
  'rsa-2048': 0.3,
  'rsa-3072': 2.1,
  'rsa-4096': 4.3,
  'ecdsa-256': 0.02,
  'ecdsa-384': 0.9,
};
export const INITCWND_BYTES = 10 * 1460;
export const QUIC_AMPLIFICATION_BYTES = 3 * 1200;
export const OTHER_HANDSHAKE_BYTES = 1200;
/** TCP + one HTTP request to the OCSP responder. */
export const OCSP_FETCH_ROUND_TRIPS = 2;
const OCSP_ONLINE_BROWSERS = new Set(['firefox']);

const isFull = (c: Connection) => c.resumed !== true && c.handshakeClass !== '0rtt';

/** Extra round trips the certificate flight costs on this transport. */
export function flightRoundTrips(transport: Connection['transport'], chainBytes: number): number {
  const limit = transport === 'quic' ? QUIC_AMPLIFICATION_BYTES : INITCWND_BYTES;
  return chainBytes + OTHER_HANDSHAKE_BYTES > limit ? 1 : 0;
}

/**
 * The configuration a connection met: its own record's facts where it has them (the field split), the
 * site's probe profile for the rest; null when neither says anything.
 */
export function connectionCertFacts(c: Connection, site: CertFacts | null): CertFacts | null {
  return certFacts(c.crypto, site);
}

function certFacts(own: Connection['crypto'], site: CertFacts | null): CertFacts | null {
  if (!own && !site) return null;
  // The chain's count and bytes come together, from one source.
  const chain = own?.chainLength != null && own.chainBytes != null ? own : site;
  return {
    ocspStapled: own?.ocspStapled ?? site?.ocspStapled ?? null,
    leafKeyType: own?.leafKeyType ?? site?.leafKeyType ?? null,
    leafKeyBits: own?.leafKeyType != null ? (own.leafKeyBits ?? null) : (site?.leafKeyBits ?? null),
    chainLength: chain?.chainLength ?? 0,
    chainBytes: chain?.chainBytes ?? 0,
  };
}

/** What one connection saves under a profile scenario: round trips and extra ms (server CPU). */
export function profileSaving(
  s: 'ocsp_stapled' | 'ecdsa_leaf' | 'shorter_chain',
  c: Connection,
  site: CertFacts | null,
): { rounds: number; cpuMs: number } {
  return savingWith(s, c, connectionCertFacts(c, site));
}

const NO_SAVING = { rounds: 0, cpuMs: 0 } as const;

/** profileSaving with the connection's configuration already worked out (once per connection, not per scenario). */
function savingWith(
  s: 'ocsp_stapled' | 'ecdsa_leaf' | 'shorter_chain',
  c: Connection,
  p: CertFacts | null,
): { rounds: number; cpuMs: number } {
  if (!p) return NO_SAVING;
  switch (s) {
    case 'ocsp_stapled':
      return p.ocspStapled === false && !c.repeat && OCSP_ONLINE_BROWSERS.has(c.browser ?? '')
        ? { rounds: OCSP_FETCH_ROUND_TRIPS, cpuMs: 0 }
        : NO_SAVING;
    case 'ecdsa_leaf': {
      if (p.leafKeyType !== 'rsa' || !isFull(c)) return NO_SAVING;
      const today = SIGN_MS[`rsa-${p.leafKeyBits}`] ?? SIGN_MS['rsa-2048']!;
      return { rounds: 0, cpuMs: today - SIGN_MS['ecdsa-256']! };
    }
    case 'shorter_chain': {
      if (p.chainLength <= 2 || !isFull(c)) return NO_SAVING;
      const shorter = (p.chainBytes * 2) / p.chainLength;
      return { rounds: flightRoundTrips(c.transport, p.chainBytes) - flightRoundTrips(c.transport, shorter), cpuMs: 0 };
    }
  }
}

const PROFILE_SCENARIOS = new Set<ScenarioName>(['ocsp_stapled', 'ecdsa_leaf', 'shorter_chain']);

export const GENERAL_ASSUMPTIONS = [
  'Time to first byte (TTFB) here is dns + connection set-up before the request + ttfb (responseStart − requestStart) of new connections; reused connections are not records and are not counted.',
  "A connection's RTT is its own TCP handshake time (TCP costs exactly one round trip); QUIC connections and TCP times under 10 ms use the region's median TCP handshake time.",
  'Only the round trips before the request change; DNS, server think time, crypto CPU and the response are kept as measured, so the savings are round-trip counts × RTT.',
  'Repeat connections are recognised by the rotating client token, so repeats across a token rotation count as first visits, and so do connections to sites that are not registered (their hostnames are not stored): the resumption and 0-RTT savings are lower bounds.',
];

/** TLS round trips before the request can leave, by class (unknown: counted from tls ÷ RTT). */
export function tlsRoundTrips(c: Connection, rtt: number): number {
  switch (c.handshakeClass) {
    case 'full-2rtt':
      return 2;
    case '1rtt':
      return 1;
    case '0rtt':
      return 0;
    default:
      return rtt > 0 ? Math.min(3, Math.max(0, Math.round(c.tls / rtt))) : 1;
  }
}

export const tcpRoundTrips = (c: Connection): number => (c.transport === 'tcp' ? 1 : 0);

/** Measured time to first byte of the connection, ms. */
export function firstByte(c: Connection): number {
  const setup = c.handshakeClass === '0rtt' ? c.tcp : c.connect;
  return c.dns + setup + c.ttfb;
}

export const MIN_RTT_MS = 10;

export interface RegionModel {
  /** Median TCP handshake time of the region's TCP connections (null when there are none usable). */
  regionRtt: number | null;
  /** QUIC handshake round trips seen in the region's h3 connections (null when too few). */
  quicRoundTrips: number | null;
}

/** Needed before the region's own QUIC handshake cost replaces the 1-round-trip design value. */
export const MIN_QUIC_SAMPLES = 30;

export function regionModel(conns: readonly Connection[]): RegionModel {
  const regionRtt = median(conns.filter((c) => c.transport === 'tcp' && c.tcp >= MIN_RTT_MS).map((c) => c.tcp));
  const quic = conns.filter((c) => c.transport === 'quic' && c.handshakeClass !== '0rtt');
  const quicRoundTrips =
    regionRtt && quic.length >= MIN_QUIC_SAMPLES
      ? Math.max(1, Math.round(median(quic.map((c) => c.tls / regionRtt))! * 10) / 10)
      : null;
  return { regionRtt, quicRoundTrips };
}

export function rttOf(c: Connection, m: RegionModel): number | null {
  if (c.transport === 'tcp' && c.tcp >= MIN_RTT_MS) return c.tcp;
  return m.regionRtt;
}

/** Round trips spent before the request today, and in a scenario. */
export function roundTripsToday(c: Connection, rtt: number): number {
  return tcpRoundTrips(c) + tlsRoundTrips(c, rtt);
}

export function roundTripsIn(s: ScenarioName, c: Connection, rtt: number, m: RegionModel): number {
  return roundTripsWith(s, c, roundTripsToday(c, rtt), tlsRoundTrips(c, rtt), m);
}

/**
 * roundTripsIn with the connection's round trips today, and its TLS ones, already worked out: once per
 * connection, not once per scenario.
 */
function roundTripsWith(s: ScenarioName, c: Connection, today: number, tls: number, m: RegionModel): number {
  switch (s) {
    case 'tls13':
      // A TLS 1.3 handshake taking 2 round trips (HelloRetryRequest) stays as it is.
      return c.handshakeClass === 'full-2rtt' && c.tlsVersion !== '1.3' ? tcpRoundTrips(c) + 1 : today;
    case 'resumption':
      return c.repeat && c.resumed !== true && tls > 1 ? tcpRoundTrips(c) + 1 : today;
    case 'zero_rtt':
      return c.repeat ? tcpRoundTrips(c) : today;
    case 'http3':
      return c.transport === 'tcp' ? Math.min(today, m.quicRoundTrips ?? 1) : today;
    case 'combined_handshake':
      return Math.min(today, 1);
    default:
      // Profile scenarios: profileSaving.
      return today;
  }
}

type Quantiles = WhatIfAccounting['ttfb'];

/** p50 and p75 of values[start..end), rounded to 0.1 ms (the values are left as they were). */
const quantiles = (values: Float64Array, start = 0, end = values.length): Quantiles => {
  const [p50, p75] = quantilesInPlace(values.slice(start, end), [0.5, 0.75]);
  const r = (x: number) => Math.round(x * 10) / 10;
  return { p50: r(p50!), p75: r(p75!) };
};

/** The answer's shapes (@tlsrum/shared/query/schemas), which the dashboard reads too. */
export type ScenarioResult = WhatIfScenario;
export type Accounting = WhatIfAccounting;
export type RegionResult = WhatIfResult;

const r2 = (x: number) => Math.round(x * 100) / 100;

/** The items in groups by `key`, each group in the items' order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Per connection, what a scenario does to it. */
interface ScenarioEffect {
  scenario: ScenarioName;
  /** Time to first byte in the scenario, ms. */
  after: Float64Array;
  /** Round trips saved (0 when none). */
  saved: Float64Array;
  /** 1 when the scenario changes the connection (a round trip or server time), else 0. */
  affected: Uint8Array;
}

/**
 * The per-connection work of the what-if, done once: connections grouped by region, each region's model,
 * and what every scenario does to every connection. A region's connections are one contiguous slice, so
 * the whole and each region are summarised from the same figures (`summarise`), not modelled twice.
 */
export interface Modelled {
  conns: Connection[];
  /** The regions with a usable RTT, each with its slice of `conns`. */
  regions: Map<string, { start: number; end: number; model: RegionModel }>;
  /** Regions seen, with a usable RTT or not, in the order met. */
  seen: string[];
  /** Whether the site's probe profile was given (the profile scenarios then apply to every connection). */
  profileKnown: boolean;
  rtts: Float64Array;
  today: Float64Array;
  tlsRounds: Float64Array;
  effects: ScenarioEffect[];
}

/**
 * Models connections that may come from several regions: each connection with its own region's RTT and
 * QUIC cost (`regionOf`; one region when omitted). Connections of a region without any usable RTT are left
 * out.
 */
export function model(
  all: readonly Connection[],
  regionOf: (c: Connection) => string = () => '',
  profile: CertFacts | null = null,
): Modelled {
  return runNow(modelling(all, regionOf, profile));
}

/** `model` as work that may pause between slices of its loops (platform/work.ts): the collector runs it so. */
export function* modelling(
  all: readonly Connection[],
  regionOf: (c: Connection) => string = () => '',
  profile: CertFacts | null = null,
): Work<Modelled> {
  const conns: Connection[] = [];
  const models: RegionModel[] = [];
  const regions: Modelled['regions'] = new Map();
  const groups = groupBy(all, regionOf);
  yield;
  for (const [region, g] of groups) {
    yield;
    const m = regionModel(g);
    if (m.regionRtt === null) continue;
    regions.set(region, { start: conns.length, end: conns.length + g.length, model: m });
    for (const c of g) {
      conns.push(c);
      models.push(m);
    }
  }
  const n = conns.length;
  const rtts = new Float64Array(n);
  const today = new Float64Array(n);
  const tlsRounds = new Float64Array(n);
  const roundsToday = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (i % SLICE === 0) yield;
    const c = conns[i]!;
    rtts[i] = rttOf(c, models[i]!)!;
    today[i] = firstByte(c);
    tlsRounds[i] = tlsRoundTrips(c, rtts[i]!);
    roundsToday[i] = roundTripsToday(c, rtts[i]!);
  }
  // The profile scenarios need the site's probe profile or connections that carry their own crypto facts.
  const knowsCrypto = profile !== null || conns.some((c) => c.crypto !== undefined);
  // A connection without facts of its own met the site's: worked out once for all of them.
  const siteFacts = certFacts(undefined, profile);
  const facts: (CertFacts | null)[] = [];
  for (let i = 0; knowsCrypto && i < n; i++) {
    if (i % SLICE === 0) yield;
    const own = conns[i]!.crypto;
    facts.push(own ? certFacts(own, profile) : siteFacts);
  }
  const effects: ScenarioEffect[] = [];
  for (const scenario of SCENARIOS.filter((s) => knowsCrypto || !PROFILE_SCENARIOS.has(s))) {
    const effect = {
      scenario,
      after: new Float64Array(n),
      saved: new Float64Array(n),
      affected: new Uint8Array(n),
    };
    const ofProfile = PROFILE_SCENARIOS.has(scenario);
    for (let i = 0; i < n; i++) {
      if (i % SLICE === 0) yield;
      const c = conns[i]!;
      const rtt = rtts[i]!;
      let rounds: number;
      let cpuMs = 0;
      if (ofProfile) ({ rounds, cpuMs } = savingWith(scenario as Parameters<typeof profileSaving>[0], c, facts[i]!));
      else rounds = roundsToday[i]! - roundTripsWith(scenario, c, roundsToday[i]!, tlsRounds[i]!, models[i]!);
      if (rounds > 0 || cpuMs > 0) effect.affected[i] = 1;
      if (rounds > 0) effect.saved[i] = rounds;
      effect.after[i] = Math.max(0, today[i]! - Math.max(0, rounds) * rtt - cpuMs);
    }
    effects.push(effect);
  }
  return { conns, regions, seen: [...groups.keys()], profileKnown: profile !== null, rtts, today, tlsRounds, effects };
}

/**
 * The model of `m`'s connections in the regions `keep` holds alone: what `modelling` gives for those
 * connections, without modelling them again. Regions are modelled apart, so a region's figures do not depend
 * on the others; only the profile scenarios do, which need a connection with crypto facts of its own among
 * them (or the site's profile). The report models every region it may show while it reads small ones again
 * (report.ts), and keeps the ones it shows.
 */
export function keepRegions(m: Modelled, keep: ReadonlySet<string>): Modelled {
  const kept = [...m.regions].filter(([region]) => keep.has(region));
  const seen = m.seen.filter((region) => keep.has(region));
  if (kept.length === m.regions.size && seen.length === m.seen.length) return m;
  const n = kept.reduce((a, [, r]) => a + r.end - r.start, 0);
  const conns: Connection[] = [];
  const regions: Modelled['regions'] = new Map();
  const at = new Uint32Array(n);
  for (const [region, r] of kept) {
    regions.set(region, { start: conns.length, end: conns.length + r.end - r.start, model: r.model });
    for (let i = r.start; i < r.end; i++) {
      at[conns.length] = i;
      conns.push(m.conns[i]!);
    }
  }
  const pick = <A extends Float64Array | Uint8Array>(from: A, to: A): A => {
    for (let i = 0; i < n; i++) to[i] = from[at[i]!]!;
    return to;
  };
  const ownCrypto = conns.some((c) => c.crypto !== undefined);
  // Without the profile's scenarios when only a left-out region's connections carried crypto facts.
  const effects = m.effects
    .filter((e) => ownCrypto || m.profileKnown || !PROFILE_SCENARIOS.has(e.scenario))
    .map((e) => ({
      scenario: e.scenario,
      after: pick(e.after, new Float64Array(n)),
      saved: pick(e.saved, new Float64Array(n)),
      affected: pick(e.affected, new Uint8Array(n)),
    }));
  return {
    conns,
    regions,
    seen,
    profileKnown: m.profileKnown,
    rtts: pick(m.rtts, new Float64Array(n)),
    today: pick(m.today, new Float64Array(n)),
    tlsRounds: pick(m.tlsRounds, new Float64Array(n)),
    effects,
  };
}

/** Sum of values[start..end), in order. */
function sum(values: ArrayLike<number>, start: number, end: number): number {
  let total = 0;
  for (let i = start; i < end; i++) total += values[i]!;
  return total;
}

/**
 * Accounting and scenarios over the modelled connections [start, end) — all of them, or one region's slice.
 * `quicRoundTrips` is the region's QUIC cost when the slice is one region. Null when the slice is empty.
 */
export function summarise(
  m: Modelled,
  start = 0,
  end = m.conns.length,
  quicRoundTrips: number | null = null,
): RegionResult | null {
  return runNow(summarising(m, start, end, quicRoundTrips));
}

/** `summarise` as work that may pause between its passes over the connections (platform/work.ts). */
export function* summarising(
  m: Modelled,
  start = 0,
  end = m.conns.length,
  quicRoundTrips: number | null = null,
): Work<RegionResult | null> {
  const n = end - start;
  if (n <= 0) return null;
  const conns = m.conns;
  /** The connections' totals in one pass: the means and each handshake class's count and TLS round trips. */
  const totals = { dnsLookups: 0, tcpRounds: 0, repeats: 0, dns: 0, tcp: 0, tls: 0 };
  const byClass = new Map<HandshakeClass, { count: number; rounds: number }>(
    HANDSHAKE_CLASSES.map((k) => [k, { count: 0, rounds: 0 }]),
  );
  for (let i = start; i < end; i++) {
    if ((i - start) % SLICE === 0) yield;
    const c = conns[i]!;
    // A DNS lookup is one round trip to the resolver (not the server's RTT): counted when it happened.
    if (c.dns > 0) totals.dnsLookups++;
    totals.tcpRounds += tcpRoundTrips(c);
    if (c.repeat) totals.repeats++;
    totals.dns += c.dns;
    totals.tcp += c.tcp;
    totals.tls += c.tls;
    const k = byClass.get(c.handshakeClass);
    if (k) {
      k.count++;
      k.rounds += m.tlsRounds[i]!;
    }
  }
  const tlsByClass = Object.fromEntries(
    [...byClass].map(([k, { count, rounds }]) => [
      k,
      { share: r2(count / n), roundTrips: count ? r2(rounds / count) : null },
    ]),
  ) as Accounting['tlsByClass'];
  const dnsRounds = totals.dnsLookups / n;
  const tcpRounds = totals.tcpRounds / n;
  const tlsMean = sum(m.tlsRounds, start, end) / n;
  yield;
  const rttMs = Math.round(median(m.rtts.subarray(start, end))! * 10) / 10;
  yield;
  const accounting: Accounting = {
    connections: n,
    rttMs,
    roundTrips: {
      dns: r2(dnsRounds),
      tcp: r2(tcpRounds),
      tls: r2(tlsMean),
      total: r2(dnsRounds + tcpRounds + tlsMean),
    },
    tlsByClass,
    repeatShare: r2(totals.repeats / n),
    meanMs: {
      dns: r2(totals.dns / n),
      tcp: r2(totals.tcp / n),
      tls: r2(totals.tls / n),
    },
    ttfb: quantiles(m.today, start, end),
  };
  const scenarios: ScenarioResult[] = [];
  for (const { scenario, after, saved, affected } of m.effects) {
    yield;
    const ttfb = quantiles(after, start, end);
    scenarios.push({
      scenario,
      ttfb,
      saving: { p50: r2(accounting.ttfb.p50 - ttfb.p50), p75: r2(accounting.ttfb.p75 - ttfb.p75) },
      affected: r2(sum(affected, start, end) / n),
      roundTripsSaved: r2(sum(saved, start, end) / n),
      assumption: ASSUMPTIONS[scenario],
    });
  }
  scenarios.sort(
    (a, b) =>
      b.saving.p75 - a.saving.p75 ||
      b.saving.p50 - a.saving.p50 ||
      SCENARIOS.indexOf(a.scenario) - SCENARIOS.indexOf(b.scenario),
  );
  return { accounting, scenarios, quicRoundTrips };
}

/** One region's result from the modelled connections; null when it has none with a usable RTT. */
export function summariseRegion(m: Modelled, region: string): RegionResult | null {
  return runNow(summarisingRegion(m, region));
}

export function* summarisingRegion(m: Modelled, region: string): Work<RegionResult | null> {
  const r = m.regions.get(region);
  return r ? yield* summarising(m, r.start, r.end, r.model.quicRoundTrips) : null;
}

/**
 * Accounting and scenarios over connections that may come from several regions: each connection is
 * modelled with its own region's RTT and QUIC cost (`regionOf`; one region when omitted). Connections of
 * a region without any usable RTT are left out. Null when none is left.
 */
export function analyse(
  all: readonly Connection[],
  regionOf: (c: Connection) => string = () => '',
  profile: CertFacts | null = null,
): RegionResult | null {
  return summariseAll(model(all, regionOf, profile));
}

/** The result over every modelled connection. */
export function summariseAll(m: Modelled): RegionResult | null {
  return runNow(summarisingAll(m));
}

export function* summarisingAll(m: Modelled): Work<RegionResult | null> {
  // The QUIC cost is a region's: the whole of several regions has none (each region's result states its own).
  const single = m.seen.length === 1 ? ([...m.regions.values()][0]?.model.quicRoundTrips ?? null) : null;
  return yield* summarising(m, 0, m.conns.length, single);
}
