/**
 * A registered site's TLS profile: what its servers accept, built from the site probe's latest results
 * (`site_probes`) cross-checked with the records of that site whose version or resumption was reported
 * (Firefox and synthetic `observed`, `server-timing`). Pure; the collector builds it, the extension and the
 * collector's ingest hand it to the classifier (`classifyHandshake({ profile })`).
 *
 * The profile claims a fact only when every source that says something about it agrees; where they
 * disagree (an edge still on TLS 1.2, one backend without tickets) it says so in `disagreements` and the
 * classifier uses none of it.
 */
import type { ProbeResult } from '../probe';
import type { Browser, EvidenceSource, TlsVersion } from '../constants';
import type { HandshakeRecord } from '../schema';

type PerVersion<T> = Record<TlsVersion, T>;

export interface SiteProfile {
  hostname: string;
  /** Whether the servers accept each version; null where nothing says, or the sources disagree. */
  versions: PerVersion<boolean | null>;
  /** The highest version every source agrees the servers accept: what a TLS 1.3 browser negotiates. */
  maxVersion: TlsVersion | null;
  /** Whether a second connection resumes, per version; null where unknown or disputed. */
  resumption: PerVersion<boolean | null>;
  /** The shortest ticket lifetime hint any probe saw, seconds. */
  ticketLifetimeS: number | null;
  earlyData: boolean | null;
  h3: boolean | null;
  confidence: {
    /** Probe results used (the latest per probe target, within PROFILE_MAX_PROBE_AGE_MS). */
    probes: number;
    /** Records of the site with a reported version (observed or server-timing). */
    observations: number;
    /** Share of those records whose version is `maxVersion` (1 when there are none). */
    agreement: number;
    /** Age of the newest probe used, seconds (null: no probe). */
    ageS: number | null;
  };
  /** What the sources disagree about, one sentence each (no counts: the list is public). Non-empty ⇒ the classifier ignores the profile. */
  disagreements: string[];
  /** When it was built, epoch ms. */
  builtAt: number;
}

/** What the records of a site reported over the last PROFILE_WINDOW_MS (observed or server-timing only). */
export interface ProfileObservations {
  /** Records per reported TLS version. */
  versions: Partial<PerVersion<number>>;
  /** Records per reported version whose resumption was reported (resumed: true / false). */
  resumed: Partial<PerVersion<{ yes: number; no: number }>>;
}

export interface SiteProfileInputs {
  hostname: string;
  /** The latest probe result of each probed hostname of the site, with when it was taken. */
  probes: ReadonlyArray<{ at: number; result: ProbeResult }>;
  observations: ProfileObservations;
  now: number;
}

/** Records looked at: a configuration change stops disputing the profile once the older records age out. */
export const PROFILE_WINDOW_MS = 2 * 86_400_000;
/** A probe older than this says nothing about today's servers (the scheduler probes hourly). */
export const PROFILE_MAX_PROBE_AGE_MS = 2 * 86_400_000;
/** Without a probe, this many unanimous observations make a version claim. */
export const PROFILE_MIN_OBSERVATIONS = 20;

const VERSIONS: readonly TlsVersion[] = ['1.2', '1.3'];

/** All the given values agree: that value; none given: null; they differ: 'mixed'. */
function unanimous<T>(values: readonly (T | null | undefined)[]): T | null | 'mixed' {
  const known = values.filter((v): v is T => v !== null && v !== undefined);
  if (known.length === 0) return null;
  return known.every((v) => v === known[0]) ? known[0]! : 'mixed';
}

export function buildSiteProfile({ hostname, probes, observations, now }: SiteProfileInputs): SiteProfile {
  const fresh = probes.filter((p) => now - p.at <= PROFILE_MAX_PROBE_AGE_MS && p.at <= now);
  const disagreements: string[] = [];
  const versions = { '1.2': null, '1.3': null } as PerVersion<boolean | null>;
  const resumption = { '1.2': null, '1.3': null } as PerVersion<boolean | null>;

  for (const v of VERSIONS) {
    const probed = unanimous(fresh.map((p) => p.result.tls.versions[v]));
    if (probed === 'mixed')
      disagreements.push(`the probed servers disagree on TLS ${v}: some accept it, some refuse it`);
    else versions[v] = probed;
    const seen = observations.versions[v] ?? 0;
    if (seen > 0) {
      if (versions[v] === false) disagreements.push(`the probe found TLS ${v} refused, yet records negotiated it`);
      else if (probed !== 'mixed') versions[v] = true;
    }
  }

  // A TLS 1.3 browser negotiates 1.3 wherever the server accepts it: records on 1.2 from such a server
  // mean some of its edges do not.
  const observed = VERSIONS.reduce((n, v) => n + (observations.versions[v] ?? 0), 0);
  let maxVersion: TlsVersion | null = null;
  if (disagreements.length === 0) {
    if (versions['1.3'] === true) maxVersion = '1.3';
    else if (versions['1.3'] === false && versions['1.2'] === true) maxVersion = '1.2';
    if (maxVersion === '1.3' && (observations.versions['1.2'] ?? 0) > 0) {
      disagreements.push('records negotiated TLS 1.2 although the servers accept TLS 1.3: some edges differ');
      maxVersion = null;
    }
    // Without a probe, only many records all on one version say what the servers accept.
    if (fresh.length === 0 && maxVersion !== null) {
      const unanimousObservations =
        observed >= PROFILE_MIN_OBSERVATIONS && (observations.versions[maxVersion] ?? 0) === observed;
      if (!unanimousObservations) maxVersion = null;
      // One version seen does not say the other is refused.
      if (maxVersion === '1.3') versions['1.2'] = null;
      if (maxVersion === null) versions['1.2'] = versions['1.3'] = null;
    }
  }

  for (const v of VERSIONS) {
    const probed = unanimous(fresh.map((p) => p.result.resumption[v]));
    if (probed === 'mixed') {
      disagreements.push(`the probed servers disagree on TLS ${v} resumption: some resume, some do not`);
      continue;
    }
    const seen = observations.resumed[v];
    if (probed === false && seen && seen.yes > 0) {
      disagreements.push(`the probe found TLS ${v} resumption off, yet records resumed`);
      continue;
    }
    resumption[v] = probed ?? (seen && seen.yes > 0 ? true : null);
  }

  const lifetimes = fresh
    .map((p) => p.result.resumption.ticketLifetimeS)
    .filter((s): s is number => typeof s === 'number');
  const early = unanimous(fresh.map((p) => p.result.earlyData.allowed));
  const h3 = unanimous(fresh.map((p) => p.result.h3.advertised));
  const newest = fresh.reduce<number | null>((m, p) => (m === null || p.at > m ? p.at : m), null);
  const agreeing = maxVersion ? (observations.versions[maxVersion] ?? 0) : 0;

  const profile: SiteProfile = {
    hostname,
    versions,
    maxVersion,
    resumption,
    ticketLifetimeS: lifetimes.length > 0 ? Math.min(...lifetimes) : null,
    earlyData: early === 'mixed' ? null : early,
    h3: h3 === 'mixed' ? null : h3,
    confidence: {
      probes: fresh.length,
      observations: observed,
      agreement: observed === 0 ? 1 : Math.round((maxVersion ? agreeing / observed : 0) * 1000) / 1000,
      ageS: newest === null ? null : Math.round((now - newest) / 1000),
    },
    disagreements,
    builtAt: now,
  };
  return disagreements.length > 0 ? claimNothing(profile) : profile;
}

/** A disputed profile keeps its counts and its reasons, and claims nothing. */
function claimNothing(p: SiteProfile): SiteProfile {
  return {
    ...p,
    versions: { '1.2': null, '1.3': null },
    maxVersion: null,
    resumption: { '1.2': null, '1.3': null },
    ticketLifetimeS: null,
    earlyData: null,
    h3: null,
  };
}

/**
 * What the classifier takes from a profile for one browser: the version both ends negotiate, whether the
 * server resumes at all, and how long its tickets last. A disputed profile gives nothing.
 */
export interface ProfileClaims {
  /** The negotiated version: the highest both the server and the browser support. */
  tlsVersion: TlsVersion | null;
  /** Per version, whether the server resumes (false: every handshake with it is full). */
  resumption: PerVersion<boolean | null>;
  ticketLifetimeMs: number | null;
  earlyData: boolean | null;
}

/**
 * TLS 1.3 since Chrome 70 / Edge 79 / Firefox 63 / Safari 12.1 (every MV3-capable version is newer); a
 * browser of unknown version (`major` 0) or family is not assumed to support it.
 */
export function browserSupportsTls13(browser: Browser, major: number): boolean {
  switch (browser) {
    case 'chrome':
    case 'chromium':
      return major >= 70;
    case 'edge':
      return major >= 79;
    case 'firefox':
      return major >= 63;
    case 'safari':
      return major >= 13;
    default:
      return false;
  }
}

export function profileClaims(
  profile: SiteProfile | null | undefined,
  browser: Browser,
  browserMajor: number,
): ProfileClaims | null {
  if (!profile || profile.disagreements.length > 0) return null;
  let tlsVersion: TlsVersion | null = null;
  if (profile.maxVersion === '1.2') tlsVersion = '1.2';
  else if (profile.maxVersion === '1.3')
    tlsVersion = browserSupportsTls13(browser, browserMajor) ? '1.3' : profile.versions['1.2'] === true ? '1.2' : null;
  return {
    tlsVersion,
    resumption: { ...profile.resumption },
    ticketLifetimeMs: profile.ticketLifetimeS === null ? null : profile.ticketLifetimeS * 1000,
    earlyData: profile.earlyData,
  };
}

/** The server never resumes for the version negotiated (or, that unknown, for any version). */
export function profileNeverResumes(claims: ProfileClaims, tlsVersion: TlsVersion | null): boolean {
  if (tlsVersion) return claims.resumption[tlsVersion] === false;
  return claims.resumption['1.2'] === false && claims.resumption['1.3'] === false;
}

/** Sources a profile never overrides. */
const STRONGER: ReadonlySet<EvidenceSource> = new Set(['observed', 'server-timing', 'implied', 'site-profile']);

type ProfiledFields = Pick<
  HandshakeRecord,
  'transport' | 'handshakeClass' | 'tlsVersion' | 'tlsVersionSource' | 'resumed' | 'resumedSource'
>;

/**
 * The classifier's site-profile rules on a finished record, for records that reached the collector
 * without them (an older extension, or one whose cached profile was older): the version both ends support
 * over an inferred or unknown one, and `resumed: false` from a server that never resumes — over TCP,
 * never over observed, server-timing or implied values, and not on a 0-RTT record (early data is a
 * resumption). What needs the connection's own timings or the client's history (the ticket lifetime in the
 * history rule, ruling out inferred 0-RTT) cannot be redone from a record and is left as sent.
 * Returns the same object when nothing applies.
 */
export function applyProfileToRecord<R extends ProfiledFields>(r: R, claims: ProfileClaims | null | undefined): R {
  if (!claims || r.transport !== 'tcp') return r;
  let out = r;
  if (claims.tlsVersion && !STRONGER.has(r.tlsVersionSource))
    out = { ...out, tlsVersion: claims.tlsVersion, tlsVersionSource: 'site-profile' };
  if (!STRONGER.has(r.resumedSource) && r.handshakeClass !== '0rtt' && profileNeverResumes(claims, out.tlsVersion)) {
    out = { ...out, resumed: false, resumedSource: 'site-profile' };
  }
  return out;
}

/** Below this many, `GET /v1/sites` shows no count of a site's records (0): a site's traffic is not public. */
export const PUBLIC_OBSERVATIONS_FROM = 100;

/**
 * A profile as anyone may read it (`GET /v1/sites` needs no token): the count of the site's records
 * rounded down to a power of ten, 0 below PUBLIC_OBSERVATIONS_FROM, and their agreement only beside such a
 * count (else 1 or 0: all agree or not) — a few visitors' records are not derivable from it.
 */
export function publicSiteProfile(p: SiteProfile): SiteProfile {
  const n = p.confidence.observations;
  const observations = n < PUBLIC_OBSERVATIONS_FROM ? 0 : 10 ** Math.floor(Math.log10(n));
  const agreement = observations
    ? Math.floor(p.confidence.agreement * 100) / 100
    : p.confidence.agreement === 1
      ? 1
      : 0;
  return { ...p, confidence: { ...p.confidence, observations, agreement } };
}

/**
 * The key of a client's handshake history with a host. Browsers key TLS sessions by the top-level site
 * (Chromium's network state partitioning, Firefox's network partitioning): a ticket from `host` under one
 * top-level site is not offered under another, so a handshake seen under another top-level site gives no
 * resumption evidence. The page's hostname stands in for its site (eTLD+1): stricter than the browser's
 * key (two subdomains of one site share sessions there), never looser.
 */
export function historyKey(topLevelHost: string | null, host: string): string {
  return `${topLevelHost ?? ''} ${host}`;
}

const isFlag = (v: unknown): v is boolean | null => v === null || typeof v === 'boolean';
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * A profile as received from a collector (`GET /v1/sites`), checked field by field: anything malformed
 * gives null (no profile), never a partial one.
 */
export function asSiteProfile(x: unknown, hostname: string): SiteProfile | null {
  if (typeof x !== 'object' || x === null) return null;
  const p = x as Record<string, unknown>;
  const versions = p.versions as Record<string, unknown> | undefined;
  const resumption = p.resumption as Record<string, unknown> | undefined;
  const confidence = p.confidence as Record<string, unknown> | undefined;
  const ok =
    p.hostname === hostname &&
    typeof versions === 'object' &&
    versions !== null &&
    isFlag(versions['1.2']) &&
    isFlag(versions['1.3']) &&
    (p.maxVersion === null || p.maxVersion === '1.2' || p.maxVersion === '1.3') &&
    typeof resumption === 'object' &&
    resumption !== null &&
    isFlag(resumption['1.2']) &&
    isFlag(resumption['1.3']) &&
    (p.ticketLifetimeS === null || isCount(p.ticketLifetimeS)) &&
    isFlag(p.earlyData) &&
    isFlag(p.h3) &&
    typeof confidence === 'object' &&
    confidence !== null &&
    isCount(confidence.probes) &&
    isCount(confidence.observations) &&
    isCount(confidence.agreement) &&
    (confidence.ageS === null || isCount(confidence.ageS)) &&
    Array.isArray(p.disagreements) &&
    p.disagreements.every((d) => typeof d === 'string') &&
    isCount(p.builtAt);
  if (!ok) return null;
  return {
    hostname,
    versions: { '1.2': versions['1.2'] as boolean | null, '1.3': versions['1.3'] as boolean | null },
    maxVersion: p.maxVersion as TlsVersion | null,
    resumption: { '1.2': resumption['1.2'] as boolean | null, '1.3': resumption['1.3'] as boolean | null },
    ticketLifetimeS: p.ticketLifetimeS as number | null,
    earlyData: p.earlyData as boolean | null,
    h3: p.h3 as boolean | null,
    confidence: {
      probes: confidence.probes as number,
      observations: confidence.observations as number,
      agreement: confidence.agreement as number,
      ageS: confidence.ageS as number | null,
    },
    disagreements: [...(p.disagreements as string[])],
    builtAt: p.builtAt as number,
  };
}
