/**
 * The site-beacon arm's figures (beacon-arm.ts): how many connections its records were joined to, how
 * often their version and resumption claims match the server, how close their TLS phase is to the
 * handshake on the wire, and — for the hosts that send the `Server-Timing` TLS lines — how many records
 * know the version and the resumption.
 */
import { serverOfHost } from '../lab/servers';
import type { BeaconArmCounts } from './beacon-arm';
import type { Sample } from './samples';
import { timing } from './score';

/** The targets (the report states them; the quick test asserts them). */
export const BEACON_TARGETS = {
  claimsAccuracy: 1,
  timingWithinTolerance: 0.95,
  coverageTlsVersion: 1,
  coverageResumed: 1,
} as const;

export interface BeaconSummary {
  beaconConnections: number;
  beaconClaimsAccuracy: number | null;
  beaconTimingWithinTolerance: number | null;
  beaconCoverageTlsVersion: number | null;
  beaconCoverageResumed: number | null;
}

/**
 * The lab hosts whose responses carry `Server-Timing: tls;desc="<protocol> <reused>"`: the `b.` hosts
 * of the nginx servers that terminate TLS in the http module (lab/nginx-conf.ts). Not the TLS 1.2
 * server without ALPN (its HTTP server sits behind a TLS terminator and knows no TLS state) nor Caddy.
 */
export function sendsServerTiming(host: string): boolean {
  const where = serverOfHost(host);
  return where?.prefix === 'b' && where.server.software === 'nginx';
}

const share = (a: number, n: number) => (n ? a / n : null);

export interface BeaconDetail extends BeaconSummary {
  claims: { tlsVersion: { n: number; right: number }; resumed: { n: number; right: number } };
  timed: { tcp: { n: number; within: number }; h3: { n: number; within: number } };
  withServerTiming: { records: number; versionKnown: number; resumedKnown: number };
}

export function beaconDetail(samples: readonly Sample[]): BeaconDetail {
  const beacon = samples.filter((s) => s.arm === 'beacon');
  const claims = { tlsVersion: { n: 0, right: 0 }, resumed: { n: 0, right: 0 } };
  for (const s of beacon)
    for (const f of ['tlsVersion', 'resumed'] as const) {
      // A claim is a stated value whose truth the server (or the wire) gives.
      if (s.claimed[f] === null || s.expected[f] === null) continue;
      claims[f].n++;
      if (s.claimed[f] === s.expected[f]) claims[f].right++;
    }
  // 0-RTT: the request leaves before the handshake completes, so the TLS phase is no round-trip count.
  const rows = timing(beacon).rows.filter((r) => r.handshakeClass !== '0rtt' && r.wireWithin !== null);
  const timed = {
    tcp: { n: 0, within: 0 },
    h3: { n: 0, within: 0 },
  };
  for (const r of rows) {
    const t = r.quic ? timed.h3 : timed.tcp;
    t.n++;
    if (r.wireWithin) t.within++;
  }
  const st = beacon.filter((s) => sendsServerTiming(s.host));
  const withServerTiming = {
    records: st.length,
    versionKnown: st.filter((s) => s.claimed.tlsVersion !== null).length,
    resumedKnown: st.filter((s) => s.claimed.resumed !== null).length,
  };
  return {
    beaconConnections: new Set(beacon.map((s) => s.connection)).size,
    beaconClaimsAccuracy: share(claims.tlsVersion.right + claims.resumed.right, claims.tlsVersion.n + claims.resumed.n),
    beaconTimingWithinTolerance: share(timed.tcp.within + timed.h3.within, timed.tcp.n + timed.h3.n),
    beaconCoverageTlsVersion: share(withServerTiming.versionKnown, withServerTiming.records),
    beaconCoverageResumed: share(withServerTiming.resumedKnown, withServerTiming.records),
    claims,
    timed,
    withServerTiming,
  };
}

export function beaconSummary(samples: readonly Sample[]): BeaconSummary {
  const d = beaconDetail(samples);
  return {
    beaconConnections: d.beaconConnections,
    beaconClaimsAccuracy: d.beaconClaimsAccuracy,
    beaconTimingWithinTolerance: d.beaconTimingWithinTolerance,
    beaconCoverageTlsVersion: d.beaconCoverageTlsVersion,
    beaconCoverageResumed: d.beaconCoverageResumed,
  };
}

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);

/** The report's section, in plain words. */
export function beaconSection(samples: readonly Sample[], counts: BeaconArmCounts | undefined): string[] {
  if (!counts) return [];
  const d = beaconDetail(samples);
  const out: string[] = ['## The site beacon', ''];
  out.push(
    'The lab pages with the beacon\'s tag, as a site owner adds it (`<script async src="https://COLLECTOR/beacon.js" data-site=…>`): the site is the page\'s host (`a.`), its extra hostname is `b.`, which sends the `Server-Timing` TLS lines; `c.` is a third party and is never sent. ' +
      'Several simulated visitors view each page twice (the first view opens a full handshake, the second may resume), each in a browser profile of its own, reaching the real collector through a front of its own that names the visitor’s address in `X-Forwarded-For` (the collector runs with `TRUST_PROXY=1`). ' +
      'The collector derives each visitor’s identity itself from the site and that address; a cell is shown only with as many distinct clients as there are visitors, and each client’s records count up to the per-client cap.',
  );
  out.push('');
  out.push(
    `Page views: ${counts.views} (failed: ${counts.failedViews}); beacons forwarded: ${counts.beacons}, refused by the collector: ${counts.refused}; records stored: ${counts.records}, joined to their connection: ${counts.joined}, without a forwarded entry: ${counts.withoutEntry}. ` +
      `Client identities the collector derived per site: ${counts.identitiesPerSite[0] === counts.identitiesPerSite[1] ? counts.identitiesPerSite[0] : counts.identitiesPerSite.join('–')}, for ${counts.visitors} visitors.`,
  );
  out.push('');
  const row = (label: string, value: string, target: string, over: string) =>
    `| ${label} | ${value} | ${target} | ${over} |`;
  out.push('| figure | value | target | over |', '|---|---|---|---|');
  out.push(
    row('connections', String(d.beaconConnections), '–', 'unique TLS connections the beacon’s records were joined to'),
  );
  out.push(
    row(
      'version and resumption claims right',
      pct(d.beaconClaimsAccuracy),
      pct(BEACON_TARGETS.claimsAccuracy),
      `${d.claims.tlsVersion.n} version and ${d.claims.resumed.n} resumption claims whose truth the server or the wire gives`,
    ),
  );
  out.push(
    row(
      'TLS phase within max(2 ms, 5 %) of the wire',
      pct(d.beaconTimingWithinTolerance),
      `≥ ${pct(BEACON_TARGETS.timingWithinTolerance)}`,
      `${d.timed.tcp.n} TCP (${d.timed.tcp.within} within) and ${d.timed.h3.n} HTTP/3 (${d.timed.h3.within} within) connections on delayed profiles, 0-RTT left out`,
    ),
  );
  out.push(
    row(
      'with Server-Timing: version known',
      pct(d.beaconCoverageTlsVersion),
      pct(BEACON_TARGETS.coverageTlsVersion),
      `${d.withServerTiming.records} records of hosts that send the Server-Timing TLS lines`,
    ),
  );
  out.push(
    row(
      'with Server-Timing: resumption known',
      pct(d.beaconCoverageResumed),
      pct(BEACON_TARGETS.coverageResumed),
      'same records',
    ),
  );
  out.push('');
  out.push(
    'What this says: a page cannot see its own TLS handshake, so without the site’s help a beacon record knows the version only from the site’s probed profile and the resumption not at all (a page has no memory of earlier visits). With the two `Server-Timing` lines every record knows both, exactly, in every browser.',
  );
  out.push('');
  return out;
}
