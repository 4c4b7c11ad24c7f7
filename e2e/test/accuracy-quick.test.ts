/**
 * The reduced accuracy matrix against the real lab and Chromium (synthetic runner, and the built
 * extension sending to the real collector; HTTP/3 in Firefox too): every new TLS connection is joined to its server log line,
 * and the fields records claim as observed, implied or server-timing agree with the servers' logs
 * (≥ 99 %). Timings are reported, not asserted (the machine is shared).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../accuracy/report';
import { quicStalled } from '../accuracy/quic-stall';
import { accuracy, quicWireSpan, STRONG_SOURCES } from '../accuracy/score';
import { chromiumCoverage, COVERAGE_TARGETS, siteProfileAccuracy } from '../accuracy/coverage';
import { QUICK_MATRIX } from '../accuracy/matrices';
import { BEACON_TARGETS } from '../accuracy/beacon-score';
import { runMatrix, type MatrixResult } from '../accuracy/run';
import { normalise } from '../accuracy/crypto-score';
import { CRYPTO_SERVERS } from '../lab/crypto-servers';
import { startLab, type RunningLab } from '../lab/lab';

const dir = mkdtempSync(join(tmpdir(), 'tlsrum-accuracy-test-'));
let lab: RunningLab;
let result: MatrixResult;

beforeAll(async () => {
  lab = await startLab({ dir });
  result = await runMatrix(lab, QUICK_MATRIX);
}, 600_000);

afterAll(async () => {
  await lab?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('accuracy (quick matrix)', () => {
  it('joins every measured connection to the server that handled it', () => {
    expect(result.errors).toEqual([]);
    expect(result.unjoined.filter((u) => u.arm !== 'extension')).toEqual([]);
    // Per visit: the page's connection and the Timing-Allow-Origin one (TCP servers); h3 pools b/c.
    const ext = QUICK_MATRIX.extension!;
    const extensionVisits = ext.servers.length * QUICK_MATRIX.profiles.length * (ext.runs * 2 + 1);
    // The crypto-lens servers' cells of their own: one pass per run, each warm pass with its priming visit.
    const c = QUICK_MATRIX.crypto!;
    const cryptoVisits =
      c.servers.length *
      c.profiles.length *
      c.browsers.length *
      c.modes.reduce((n, m) => n + c.runs * (m === 'warm' ? 2 : 1), 0);
    // The beacon arm: every visitor views every server's page once per round.
    const b = QUICK_MATRIX.beacon!;
    const beaconViews = b.browsers.length * QUICK_MATRIX.profiles.length * b.servers.length * b.visitors * b.rounds;
    expect(result.beacon?.views).toBe(beaconViews);
    const visits = result.counts.visits - extensionVisits - cryptoVisits - beaconViews;
    const tcpServers = QUICK_MATRIX.servers.filter((s) => s !== 'h3').length;
    const { h3 } = QUICK_MATRIX;
    expect(visits).toBe(
      QUICK_MATRIX.profiles.length *
        (tcpServers * QUICK_MATRIX.browsers.length * (QUICK_MATRIX.runs * 2 + 1) +
          h3.browsers.length * (h3.runs * 2 + 1)),
    );
    const connections = new Set(
      result.samples.filter((s) => s.arm !== 'extension' && s.arm !== 'beacon').map((s) => s.connection),
    ).size;
    expect(connections).toBeGreaterThanOrEqual(visits);
    expect(result.counts.opaque).toBeGreaterThan(0);
  });

  it('the real extension: the records the collector stored are joined to their connections, two per visit', () => {
    const ext = QUICK_MATRIX.extension!;
    const extensionVisits = ext.servers.length * QUICK_MATRIX.profiles.length * (ext.runs * 2 + 1);
    // At least the page's and b.'s connection per TCP visit (HTTP/1.1 may open a second one to the
    // page's host); over HTTP/3 Chromium pools b. onto the page's QUIC connection: one per visit.
    expect(result.extension).toMatchObject({ visits: extensionVisits, failedVisits: 0 });
    const h3Visits = ext.servers.includes('h3') ? QUICK_MATRIX.profiles.length * (ext.runs * 2 + 1) : 0;
    expect(result.extension!.records).toBeGreaterThanOrEqual(2 * (extensionVisits - h3Visits) + h3Visits);
    expect(result.extension!.joined).toBe(result.extension!.records);
    expect(result.unjoined.filter((u) => u.arm === 'extension')).toEqual([]);
    const samples = result.samples.filter((s) => s.arm === 'extension');
    // One connection per record: the join never gives two records the same connection.
    expect(new Set(samples.map((s) => s.connection)).size).toBe(samples.length);
    expect(new Set(samples.map((s) => s.entryType))).toEqual(new Set(['navigation', 'resource']));
    const truths = new Set(samples.map((s) => `${s.server} ${s.expected.handshakeClass} ${s.expected.resumed}`));
    expect(truths).toContain('t12-noalpn full-2rtt false');
    expect(truths).toContain('t13-h2 1rtt true');
    expect(samples.filter((x) => x.server === 'h3').length).toBeGreaterThanOrEqual(h3Visits);
  });

  it('HTTP/3 in both browsers: QUIC connections seen on the wire, no handshake waiting for a re-sent ClientHello', () => {
    const h3 = result.samples.filter((s) => s.server === 'h3');
    const connections = new Set(h3.map((s) => s.connection));
    expect(connections.size).toBeGreaterThanOrEqual(10);
    expect(new Set(h3.map((s) => `${s.arm} ${s.browser}`))).toEqual(
      new Set([
        'synthetic chromium',
        'rum chromium',
        'synthetic firefox',
        'extension chromium',
        'beacon chromium',
        'beacon firefox',
      ]),
    );
    for (const s of h3) {
      expect(s.claimed, s.connection).toMatchObject({ protocol: 'h3', tlsVersion: '1.3' });
      expect(s.truth.from).toBe('wire-h3');
      const kinds = s.proxy!.up.kinds!;
      // Both browsers' ClientHello (post-quantum key share) spans two Initial datagrams; the relay held
      // the second until Caddy had answered the first, so no ClientHello had to be sent again.
      expect(kinds.slice(0, 2), s.connection).toEqual(['I', 'I']);
      expect(
        quicStalled(s.proxy),
        `${s.connection} ${s.expected.handshakeClass} up ${JSON.stringify([s.proxy?.up.kinds, s.proxy?.up.arrived])} down ${JSON.stringify([s.proxy?.down.kinds, s.proxy?.down.arrived])}`,
      ).toBe(false);
      // The client's Finished went out with its first 1-RTT packet: the span the TLS phase is scored on.
      expect(quicWireSpan(s.proxy), s.connection).toBeGreaterThan(s.rttMs);
      // Early data on the wire ⇔ the record says 0-RTT (Chromium: requestStart < connectEnd, implied;
      // Firefox: no TLS phase after a handshake with the host, inferred — from a history a page's beacon has
      // not: there the record states no class, never 1-RTT).
      if (s.arm === 'beacon' && s.browser === 'firefox') {
        if (s.truth.earlyData === true) expect(s.claimed.handshakeClass, s.connection).not.toBe('1rtt');
        continue;
      }
      expect(s.claimed.handshakeClass === '0rtt', s.connection).toBe(s.truth.earlyData === true);
      if (s.claimed.handshakeClass === '0rtt')
        expect(s.claimed.handshakeClassSource, s.connection).toBe(s.browser === 'chromium' ? 'implied' : 'inferred');
    }
    // Warm Chromium visits resume with 0-RTT (the NetLog's accepted 0-RTT is the synthetic record's resumption).
    expect(
      h3.some(
        (s) =>
          s.browser === 'chromium' &&
          s.arm === 'synthetic' &&
          s.expected.handshakeClass === '0rtt' &&
          s.claimed.resumed === true &&
          s.claimed.resumedSource === 'observed',
      ),
    ).toBe(true);
  });

  it('has the ground truths the matrix is for: 2-RTT TLS 1.2, resumptions, and a server that never resumes', () => {
    const truths = new Set(result.samples.map((s) => `${s.server} ${s.expected.handshakeClass} ${s.expected.resumed}`));
    expect(truths).toContain('t12-noalpn full-2rtt false');
    expect(truths).toContain('t12-noalpn 1rtt true');
    expect(truths).toContain('t13-h2 1rtt true');
    expect(truths).not.toContain('t13-notix 1rtt true');
  });

  it('every connection went through the delaying proxy, which logged the injected delay', () => {
    for (const s of result.samples) {
      expect(s.proxy, `${s.connection} has a proxy log line`).not.toBeNull();
      if (s.server !== 'h3') expect(s.proxy!.connectHeldMs).toBeGreaterThanOrEqual(s.rttMs);
      expect(s.proxy!.up.min).toBeGreaterThanOrEqual(s.rttMs / 2);
      expect(s.proxy!.down.min).toBeGreaterThanOrEqual(s.rttMs / 2);
    }
  });

  it('observed, implied and server-timing fields agree with the servers (≥ 99 %), and the report ends with the summary', () => {
    const { markdown, summary } = renderReport(result, {
      startedAt: new Date().toISOString(),
      durationS: 0,
      quick: true,
      browser: `Chromium ${result.browserVersion}`,
      browsers: QUICK_MATRIX.browsers,
      h3: QUICK_MATRIX.h3,
      extension: QUICK_MATRIX.extension!,
      profiles: QUICK_MATRIX.profiles,
      modes: QUICK_MATRIX.modes,
      servers: QUICK_MATRIX.servers,
      runs: QUICK_MATRIX.runs,
      loadBefore: loadavg(),
      loadAfter: loadavg(),
      cores: cpus().length,
    });
    expect(summary.tlsVersionAccuracy).toBeGreaterThanOrEqual(0.99);
    expect(summary.resumedAccuracy).toBeGreaterThanOrEqual(0.99);
    // The class, where the record states it as implied (QUIC, 0-RTT by the order of events), in every arm:
    // the beacon's Firefox HTTP/3 records that took no handshake time state no class (no history to say 0-RTT).
    const implied = accuracy(result.samples, 'handshakeClass', STRONG_SOURCES);
    expect(implied.n).toBeGreaterThan(0);
    expect(implied.accuracy).toBeGreaterThanOrEqual(0.99);
    expect(summary.h3Connections).toBeGreaterThanOrEqual(10);
    expect(summary).toHaveProperty('h3TimingWithinTolerance');
    expect(Object.keys(summary).slice(0, 6)).toEqual([
      'connections',
      'tlsVersionAccuracy',
      'resumedAccuracy',
      'classAccuracy',
      'timingWithinTolerance',
      'unknownShare',
    ]);
    for (const f of ['tlsVersion', 'resumed', 'handshakeClass']) expect(markdown).toContain(`### ${f}`);
    expect(markdown).toContain('What cannot be told apart');
    expect(summary.cryptoFieldAccuracy).toBe(1);
    expect(markdown).toContain('## Crypto effects');
    expect(markdown).toContain('Chromium without Server-Timing');
    for (const k of ['coverageChromiumTlsVersion', 'coverageChromiumResumed', 'siteProfileAccuracy'])
      expect(summary, k).toHaveProperty(k);
  });

  it('the site beacon: every page view taken, one client identity per visitor, and its records right where the server can tell', () => {
    const b = QUICK_MATRIX.beacon!;
    expect(result.beacon, `refused: ${JSON.stringify(result.beacon!.refusals)}`).toMatchObject({
      failedViews: 0,
      refused: 0,
      withoutEntry: 0,
      visitors: b.visitors,
    });
    // The collector derived the identity from the front's X-Forwarded-For: one client per visitor and site.
    expect(result.beacon!.identitiesPerSite).toEqual([b.visitors, b.visitors]);
    // A record joins when the profile's proxy logged as many connections to its host in its view as there
    // are records (or one clearly nearest): nearly all do; the rest are listed in the report with why.
    const unjoined = result.unjoined.filter((u) => u.arm === 'beacon');
    expect(result.beacon!.joined + unjoined.length).toBe(result.beacon!.records);
    expect(result.beacon!.joined).toBeGreaterThanOrEqual(0.9 * result.beacon!.records);
    const samples = result.samples.filter((s) => s.arm === 'beacon');
    expect(new Set(samples.map((s) => s.connection)).size).toBe(samples.length);
    // Only the site's own hosts: the third party (c.) never appears.
    expect(samples.every((s) => !s.host.startsWith('c.'))).toBe(true);
    expect(new Set(samples.map((s) => s.browser))).toEqual(new Set(b.browsers));
    const { summary } = renderReport(result, {
      startedAt: new Date().toISOString(),
      durationS: 0,
      quick: true,
      browser: '',
      profiles: QUICK_MATRIX.profiles,
      modes: QUICK_MATRIX.modes,
      servers: QUICK_MATRIX.servers,
      runs: QUICK_MATRIX.runs,
      beacon: b,
      loadBefore: loadavg(),
      loadAfter: loadavg(),
      cores: cpus().length,
    });
    expect(summary.beaconConnections).toBe(samples.length);
    expect(summary.beaconClaimsAccuracy).toBe(BEACON_TARGETS.claimsAccuracy);
    expect(summary.beaconCoverageTlsVersion).toBe(BEACON_TARGETS.coverageTlsVersion);
    expect(summary.beaconCoverageResumed).toBe(BEACON_TARGETS.coverageResumed);
    // The TLS phase against the wire is reported, not asserted (the machine is shared; see the report).
    expect(summary.beaconTimingWithinTolerance).toEqual(expect.any(Number));
  });

  it('crypto lens: every crypto arm in both browsers, its records stating what the server is', () => {
    const c = QUICK_MATRIX.crypto!;
    for (const spec of CRYPTO_SERVERS) {
      for (const browser of c.browsers) {
        const full = result.samples.filter(
          (s) => s.arm === 'synthetic' && s.server === spec.id && s.browser === browser && s.truth.resumed === false,
        );
        expect(full.length, `${spec.id} ${browser}`).toBeGreaterThan(0);
        for (const s of full) {
          const claimed = s.cryptoClaimed!;
          expect(claimed, `${spec.id} ${browser}`).toMatchObject({
            certKeyType: spec.crypto.keyType,
            certKeyBits: spec.crypto.keyBits,
            certChainLength: spec.crypto.chainDepth,
            certChainBytes: lab.crypto.chainBytes[spec.id],
          });
          // The group: the one the server accepts, else what nginx's OpenSSL 3.0 picks from the browser's shares.
          expect(normalise('group', claimed.group as string), `${spec.id} ${browser}`).toBe(
            normalise('group', spec.crypto.groups.length === 1 ? spec.crypto.groups[0]! : 'X25519'),
          );
          if (browser === 'chromium') expect(claimed.ocspStapled, `${spec.id} chromium`).toBe(spec.crypto.ocspStapled);
        }
      }
    }
  });

  it('site profiles: every lab site probed without disagreement; in Chromium without Server-Timing the version is known and right, and every site-profile claim matches the server', () => {
    const profiles = Object.values(result.siteProfiles ?? {});
    expect(profiles.length).toBe(2 * QUICK_MATRIX.servers.length);
    for (const p of profiles) expect(p, p.hostname).toMatchObject({ disagreements: [], confidence: { probes: 1 } });
    const sp = siteProfileAccuracy(result.samples);
    expect(sp.claims).toBeGreaterThan(0);
    expect(sp.right).toBe(sp.claims);
    const c = chromiumCoverage(result.samples);
    for (const arm of ['rum', 'extension'] as const) {
      expect(c.arms[arm].tlsVersion.records, arm).toBeGreaterThan(0);
      expect(c.arms[arm].tlsVersion.coverage, arm).toBeGreaterThanOrEqual(COVERAGE_TARGETS.tlsVersionKnown);
      expect(c.arms[arm].tlsVersion.accuracy, arm).toBe(1);
      // Known from the profile: the built extension fetched it with the site list and its records say so.
      expect(c.arms[arm].tlsVersion.bySource['site-profile']?.claims ?? 0, arm).toBeGreaterThan(0);
    }
  });
});
