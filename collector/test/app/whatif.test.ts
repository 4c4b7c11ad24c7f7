/**
 * What-if: with known RTTs, every scenario saves exactly (round trips saved) × RTT, in the pure model
 * and through GET /v1/whatif on a real store (per region, each with its own RTT).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  analyse,
  connectionCertFacts,
  firstByte,
  model,
  regionModel,
  SCENARIOS,
  summariseRegion,
  type Connection,
  type ScenarioName,
} from '../../src/whatif/model';
import { whatIf } from '../../src/whatif/report';
import {
  CLIENT_SAMPLE_SHARE,
  CLIENT_SAMPLE_TABLE,
  connectionsParams,
  connectionsSql,
  connectionsTable,
  SAMPLE_HEADROOM,
} from '../../src/whatif/query';
import { generate, insertRows } from '../support/generate';
import { removeDir, startApp, type TestApp } from '../support/helpers';

/** A TLS 1.2 full handshake on a path of exactly `rtt` ms: TCP 1 RTT, TLS 2 RTT, no DNS, server 10 ms. */
const tls12full = (rtt: number, repeat: boolean): Connection => ({
  dns: 0,
  tcp: rtt,
  tls: 2 * rtt,
  connect: 3 * rtt,
  ttfb: rtt + 10,
  transport: 'tcp',
  tlsVersion: '1.2',
  handshakeClass: 'full-2rtt',
  resumed: false,
  repeat,
});

const savings = (r: ReturnType<typeof analyse>) =>
  Object.fromEntries(r!.scenarios.map((s) => [s.scenario, s.saving])) as Record<
    ScenarioName,
    { p50: number; p75: number }
  >;

/** Full TLS 1.2 handshakes on a 30 ms path, nothing resumed, no DNS, no jitter (the repeat tests' traffic). */
const STEADY_TLS12 = {
  rtt: 30,
  fullTls: 60,
  resumedTls: 30,
  resumedShare: 0,
  tls13Share: 0,
  h3Share: 0,
  jitter: 0,
  dnsShare: 0,
};

/** A shown region's accounting in a report, or undefined. */
function accountingOf(report: Awaited<ReturnType<typeof whatIf>>, country: string) {
  const region = report.regions.find((r) => r.country === country);
  return region && 'result' in region ? region.result?.accounting : undefined;
}

describe('what-if model', () => {
  it('saves round-trip counts × RTT for TLS 1.2 full handshakes', () => {
    // 80 % repeat connections, so p50 and p75 both fall on repeat connections.
    const conns = Array.from({ length: 100 }, (_, i) => tls12full(50, i % 5 !== 0));
    const r = analyse(conns)!;
    expect(firstByte(conns[0]!)).toBe(3 * 50 + 60);
    expect(r.accounting.ttfb).toEqual({ p50: 210, p75: 210 });
    expect(r.accounting.roundTrips).toEqual({ dns: 0, tcp: 1, tls: 2, total: 3 });
    expect(r.accounting.tlsByClass['full-2rtt']).toEqual({ share: 1, roundTrips: 2 });
    expect(r.accounting.repeatShare).toBe(0.8);
    expect(savings(r)).toEqual({
      tls13: { p50: 50, p75: 50 }, // 2 → 1 TLS round trip
      resumption: { p50: 50, p75: 50 }, // repeat: abbreviated TLS 1.2 handshake, 1 round trip
      zero_rtt: { p50: 100, p75: 100 }, // repeat: no TLS round trip before the request
      http3: { p50: 100, p75: 100 }, // TCP 1 + TLS 2 → QUIC 1
      combined_handshake: { p50: 100, p75: 100 }, // TCP + TLS in 1
    });
    // Ranked by p75 saving, ties in the scenario order; the profile scenarios only come with a probe profile.
    expect(r.scenarios.map((s) => s.scenario)).toEqual([
      'zero_rtt',
      'http3',
      'combined_handshake',
      'tls13',
      'resumption',
    ]);
    const byName = Object.fromEntries(r.scenarios.map((s) => [s.scenario, s]));
    expect(byName.tls13!.affected).toBe(1);
    expect(byName.resumption!.affected).toBe(0.8);
    expect(byName.zero_rtt!.roundTripsSaved).toBe(1.6);
    for (const s of r.scenarios.map((x) => x.scenario)) expect(byName[s]!.assumption.length).toBeGreaterThan(40);
  });

  it('uses each connection’s own RTT, and the region’s for QUIC', () => {
    const rtts = [20, 40, 60, 80, 100];
    const conns = rtts.flatMap((rtt) => Array.from({ length: 20 }, () => tls12full(rtt, false)));
    const r = analyse(conns)!;
    // Today's first byte 4·RTT + 10 → TLS 1.3 saves one RTT of each connection: 4·RTT+10 → 3·RTT+10.
    const sorted = conns.map((c) => 4 * c.tcp + 10).sort((a, b) => a - b);
    expect(r.accounting.ttfb.p50).toBe(sorted[49]! + (sorted[50]! - sorted[49]!) * 0.5);
    expect(savings(r).tls13).toEqual({ p50: 60, p75: 80 });
    expect(r.accounting.rttMs).toBe(60);
    // A QUIC connection has no TCP phase: it is modelled with the region's median TCP time.
    const quic: Connection = {
      ...tls12full(0, false),
      transport: 'quic',
      tcp: 0,
      tls: 60,
      connect: 60,
      ttfb: 70,
      tlsVersion: '1.3',
      handshakeClass: '1rtt',
    };
    expect(regionModel([...conns, quic]).regionRtt).toBe(60);
  });

  it('takes the QUIC handshake cost from the region’s own h3 connections', () => {
    const rtt = 50;
    const tcp = Array.from({ length: 50 }, () => tls12full(rtt, false));
    // QUIC handshakes here take 2 RTT (e.g. a certificate chain over the anti-amplification limit).
    const h3 = Array.from({ length: 40 }, (): Connection => ({
      ...tls12full(rtt, false),
      transport: 'quic',
      tcp: 0,
      tls: 2 * rtt,
      connect: 2 * rtt,
      tlsVersion: '1.3',
      handshakeClass: '1rtt',
    }));
    const r = analyse([...tcp, ...h3])!;
    expect(r.quicRoundTrips).toBe(2);
    const only = analyse(tcp)!;
    expect(only.quicRoundTrips).toBeNull();
    // Every TCP connection: 3 → 2 round trips with this region's QUIC; the h3 ones are unchanged.
    const http3 = r.scenarios.find((s) => s.scenario === 'http3')!;
    expect(http3.roundTripsSaved).toBeCloseTo((50 * 1) / 90, 2);
    expect(savings(only).http3).toEqual({ p50: 100, p75: 100 });
  });

  it('leaves what a scenario cannot improve alone', () => {
    const base = tls12full(40, true);
    const conns: Connection[] = [
      // TLS 1.3 with HelloRetryRequest: 2 round trips, but already TLS 1.3.
      ...Array.from({ length: 10 }, () => ({ ...base, tlsVersion: '1.3' as const })),
      // TLS 1.3 full, repeat: resumption saves no round trip (1 either way); 0-RTT saves one.
      ...Array.from({ length: 10 }, () => ({
        ...base,
        tlsVersion: '1.3' as const,
        handshakeClass: '1rtt' as const,
        tls: 40,
        connect: 80,
      })),
      // Already 0-RTT: the request left with the handshake; first byte excludes the TLS phase.
      ...Array.from({ length: 10 }, () => ({
        ...base,
        tlsVersion: '1.3' as const,
        handshakeClass: '0rtt' as const,
        tls: 40,
        connect: 80,
        resumed: true,
      })),
    ];
    expect(firstByte(conns[25]!)).toBe(40 + 50);
    const r = analyse(conns)!;
    const by = Object.fromEntries(r.scenarios.map((s) => [s.scenario, s]));
    expect(by.tls13!.affected).toBe(0);
    // Resumption helps only the HelloRetryRequest ones (the PSK handshake carries the right key share).
    expect(by.resumption!.affected).toBe(0.33);
    expect(by.zero_rtt!.affected).toBeCloseTo(0.67, 2); // the HRR and the 1-RTT ones
    expect(by.combined_handshake!.roundTripsSaved).toBeCloseTo((10 * 2 + 10 * 1) / 30, 2);
    expect(analyse(conns.map((c) => ({ ...c, transport: 'quic' as const, tcp: 0 })))).toBeNull(); // no RTT to go by
  });

  it('gives each region, from one model of the whole, exactly what the region analysed alone gives', () => {
    const profile = {
      ocspStapled: false,
      leafKeyType: 'rsa' as const,
      leafKeyBits: 3072,
      chainLength: 3,
      chainBytes: 14_000,
    };
    let seed = 3;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const regions = ['DE', 'BR', 'JP', 'QUIC-only'];
    const conns = Array.from({ length: 3000 }, (_, i) => {
      const country = regions[i % regions.length]!;
      const rtt = 20 + Math.round(next() * 200);
      const quic = country === 'QUIC-only' || next() < 0.2;
      const classes = ['full-2rtt', '1rtt', '0rtt', 'unknown'] as const;
      return {
        ...tls12full(rtt, next() < 0.4),
        country,
        dns: next() < 0.5 ? Math.round(next() * 30) : 0,
        tcp: quic ? 0 : rtt,
        transport: quic ? ('quic' as const) : ('tcp' as const),
        tlsVersion: next() < 0.5 ? ('1.3' as const) : ('1.2' as const),
        handshakeClass: classes[Math.floor(next() * classes.length)]!,
        resumed: next() < 0.3,
        browser: next() < 0.5 ? 'firefox' : 'chrome',
        ...(next() < 0.3 ? { crypto: { leafKeyType: 'ecdsa' as const, leafKeyBits: 256, ocspStapled: true } } : {}),
      };
    });
    for (const p of [null, profile]) {
      const m = model(conns, (c) => (c as (typeof conns)[number]).country, p);
      for (const region of regions) {
        const alone = analyse(
          conns.filter((c) => c.country === region),
          undefined,
          p,
        );
        expect(summariseRegion(m, region), region).toEqual(alone);
      }
      // A region without any usable RTT (QUIC only, no TCP handshake to go by) has no result either way.
      expect(summariseRegion(m, 'QUIC-only')).toBeNull();
    }
  });
});

describe('GET /v1/whatif on a real store', () => {
  let t: TestApp;
  const now = Date.now();
  const hour = 3_600_000;

  beforeAll(async () => {
    // Exact arithmetic on data with many records per client: without the per-client cap (flood.test.ts tests it).
    t = await startApp({
      ADMIN_TOKEN: 'admin-token-0123456789',
      ALERT_INTERVAL_MS: '0',
      MIN_CLIENTS_PER_CELL: '20',
      CLIENT_RECORDS_PER_CELL_DAY: '0',
    });
    // Lab-like traffic with known RTTs and no jitter: every connection a TLS 1.2 full handshake (2 RTT).
    const lab = {
      site: 'lab.example',
      from: now - 2 * hour,
      to: now,
      clients: 40,
      resumedShare: 0,
      tls13Share: 0,
      h3Share: 0,
      jitter: 0,
      dnsShare: 0,
    };
    const rows = [
      ...generate({ ...lab, country: 'DE', rtt: 20, fullTls: 40, resumedTls: 20, records: 400, seed: 11 }),
      ...generate({ ...lab, country: 'AU', rtt: 150, fullTls: 300, resumedTls: 150, records: 400, seed: 12 }),
      // Too few clients: suppressed.
      ...generate({
        ...lab,
        country: 'NZ',
        rtt: 160,
        fullTls: 320,
        resumedTls: 160,
        records: 50,
        clients: 5,
        seed: 13,
      }),
      // Another site, not asked for.
      ...generate({
        ...lab,
        site: 'other.example',
        country: 'DE',
        rtt: 20,
        fullTls: 40,
        resumedTls: 20,
        records: 100,
        seed: 14,
      }),
    ];
    await insertRows(t.app.store.ingest, rows);
  });
  afterAll(async () => {
    await t.close();
    removeDir(t.dataDir);
  });

  /**
   * A site's records over two hours, `hoursAgo` back (apart from the other tests' records): 4 000 connections of
   * 400 clients in the US at 40 ms beside `other`'s; TLS 1.2 full handshakes, no jitter. The what-if query for them.
   */
  async function usBeside(
    site: string,
    hoursAgo: number,
    seed: number,
    other: { country: string; rtt: number; fullTls: number; clients: number; records: number },
  ) {
    const from = now - hoursAgo * hour;
    const traffic = {
      site,
      from,
      to: from + 2 * hour,
      resumedShare: 0,
      tls13Share: 0,
      h3Share: 0,
      jitter: 0,
      dnsShare: 0,
      fullTls: 80,
      resumedTls: 40,
    };
    await insertRows(t.app.store.ingest, [
      ...generate({ ...traffic, country: 'US', rtt: 40, clients: 400, records: 4000, seed }),
      ...generate({ ...traffic, ...other, seed: seed + 1 }),
    ]);
    return { site, from, to: from + 2 * hour, filters: {}, ticketLifetimeMs: 24 * hour };
  }

  /** The lab site's records, every one of them, as the report is asked for them directly. */
  const labRange = {
    site: 'lab.example',
    from: now - 3 * hour,
    to: now + 1000,
    filters: {},
    ticketLifetimeMs: 24 * hour,
  };
  const get = (qs: string, token = 'admin-token-0123456789') =>
    t.app.inject({ url: `/v1/whatif?${qs}`, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('reproduces the savings expected from round-trip counts in each region', async () => {
    const res = await get(`site=lab.example&from=${now - 3 * hour}&to=${now + 1000}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.site).toBe('lab.example');
    expect(body.connections).toBe(800);
    expect(body.sampled).toBe(false);
    expect(body.assumptions.general.length).toBeGreaterThan(2);
    expect(Object.keys(body.assumptions.scenarios).sort()).toEqual([...SCENARIOS].sort());
    const region = (c: string) => body.regions.find((r: { country: string }) => r.country === c);
    expect(region('NZ')).toEqual({ country: 'NZ', suppressed: true });
    for (const [country, rtt] of [
      ['DE', 20],
      ['AU', 150],
    ] as const) {
      const r = region(country).result;
      expect(r.accounting.rttMs).toBe(rtt);
      expect(r.accounting.roundTrips.tcp).toBe(1);
      expect(r.accounting.roundTrips.tls).toBe(2);
      const s = Object.fromEntries(
        r.scenarios.map((x: { scenario: string; saving: { p50: number; p75: number } }) => [x.scenario, x.saving]),
      );
      expect(s.tls13).toEqual({ p50: rtt, p75: rtt });
      expect(s.http3).toEqual({ p50: 2 * rtt, p75: 2 * rtt });
      expect(s.combined_handshake).toEqual({ p50: 2 * rtt, p75: 2 * rtt });
      // Repeat visits: 40 clients × 10 connections each within 2 h → 90 % are repeats.
      expect(r.accounting.repeatShare).toBe(0.9);
      expect(s.resumption).toEqual({ p50: rtt, p75: rtt });
      expect(s.zero_rtt).toEqual({ p50: 2 * rtt, p75: 2 * rtt });
    }
    // The whole site: shown regions only, each connection with its own RTT.
    expect(body.overall.accounting.connections).toBe(800);
    expect(body.overall.scenarios[0].saving.p75).toBeGreaterThan(0);
  });

  it('never counts a connection to an unregistered site as a repeat: its host is not stored, so it may be another one', async () => {
    // 40 clients × 10 connections within 2 h in each region, 30 h back (apart from the other tests' records):
    // in DE to a registered site, in US to sites that are not registered (stored without a hostname).
    const from = now - 30 * hour;
    const traffic = { ...STEADY_TLS12, from, to: from + 2 * hour, clients: 40, records: 400 };
    await insertRows(t.app.store.ingest, [
      ...generate({ ...traffic, site: 'repeat.example', country: 'DE', seed: 21 }),
      ...generate({ ...traffic, site: '', country: 'US', seed: 22 }),
    ]);
    const report = await whatIf(
      t.app.store.query,
      { site: null, from, to: from + 2 * hour, filters: {}, ticketLifetimeMs: 24 * hour, limit: 200_000 },
      20,
    );
    const accounting = (c: string) => accountingOf(report, c);
    expect(accounting('DE')?.repeatShare).toBe(0.9);
    expect(accounting('US')?.connections).toBe(400);
    expect(accounting('US')?.repeatShare).toBe(0);
  });

  it('counts a repeat only after an earlier connection within the ticket lifetime: connections opened in the same millisecond are not repeats of each other', async () => {
    // 40 clients in DE, 50 h back (apart from the other tests' records), each opening two connections in the
    // same millisecond (a page's parallel connections), one 10 minutes later and one 2 hours after that.
    const from = now - 50 * hour;
    const [base] = generate({
      ...STEADY_TLS12,
      from,
      to: from + 1,
      clients: 1,
      records: 1,
      site: 'ties.example',
      country: 'DE',
      seed: 23,
    });
    const offsets = [0, 0, 10 * 60_000, 130 * 60_000];
    await insertRows(
      t.app.store.ingest,
      Array.from({ length: 40 }, (_, client) =>
        offsets.map((offset) => ({ ...base!, ts: from + client * 1000 + offset, clientToken: `ties-${client}` })),
      ).flat(),
    );
    const report = await whatIf(
      t.app.store.query,
      { site: 'ties.example', from, to: from + 3 * hour, filters: {}, ticketLifetimeMs: hour, limit: 200_000 },
      20,
    );
    const accounting = accountingOf(report, 'DE');
    expect(accounting?.connections).toBe(160);
    // Per client: the pair (neither earlier than the other) and the one 2 h on (past the hour) are first
    // visits; the one 10 minutes on repeats. The same records give the same answer every time.
    expect(accounting?.repeatShare).toBe(0.25);
  });

  it('answers every field the report computes (the response schema serialises, it drops nothing)', async () => {
    const range = { from: now - 3 * hour, to: now + 1000 };
    const res = await get(`site=lab.example&from=${range.from}&to=${range.to}`);
    const report = await whatIf(
      t.app.store.query,
      { site: 'lab.example', ...range, filters: {}, ticketLifetimeMs: 24 * hour, limit: 200_000 },
      20,
    );
    expect(res.json()).toEqual(JSON.parse(JSON.stringify(report)));
    expect(report.overall?.accounting.tlsByClass['full-2rtt'].share).toBe(1);
  });

  it('a range holding more connections than the limit is sampled by whole clients: at most the limit analysed, every region counted whole, the same savings', async () => {
    const range = labRange;
    // A threshold of 8: the sample holds about 17 of each region's 40 clients (see the next test for 20).
    const whole = await whatIf(t.app.store.query, { ...range, limit: 200_000 }, 8);
    const sampled = await whatIf(t.app.store.query, { ...range, limit: 300 }, 8);
    expect(whole.sampled).toBe(false);
    expect(sampled.sampled).toBe(true);
    // 800 connections of 80 clients (10 each): about a third of the clients, then cut to the limit.
    expect(sampled.connections).toBeLessThanOrEqual(300);
    expect(sampled.connections).toBeGreaterThan(150);
    // The regions' counts and suppression come from the whole range, not from the sample.
    const counts = (r: typeof whole) =>
      r.regions.map((x) => ('connections' in x ? [x.country, x.connections] : [x.country]));
    expect(counts(sampled)).toEqual(counts(whole));
    // Every connection of a region alike: a sample's savings are the whole range's.
    for (const country of ['DE', 'AU']) {
      const scenarios = (r: typeof whole) => {
        const region = r.regions.find((x) => x.country === country);
        return region && 'result' in region ? region.result?.scenarios.map((s) => [s.scenario, s.saving]) : undefined;
      };
      expect(scenarios(sampled)).toBeDefined();
      expect(scenarios(sampled)).toEqual(scenarios(whole));
    }
    // The same records give the same sample.
    expect(await whatIf(t.app.store.query, { ...range, limit: 300 }, 8)).toEqual(sampled);
  });

  it("a sample of at most a sixteenth of the clients reads the client sample's table: the same connections as the raw table gives", async () => {
    const rows = async (sql: string, params: Record<string, unknown>) =>
      (await t.app.store.query.query({ query: sql, query_params: params, format: 'JSONCompactEachRow' })).json();
    // Every site's records of the last day and a half: a few hundred clients.
    const q = { ...labRange, site: null, from: now - 36 * hour, limit: 100 };
    for (const [share, filters] of [
      [0.03, {}],
      [0.05, { country: 'DE' }],
      [CLIENT_SAMPLE_SHARE, {}],
      [CLIENT_SAMPLE_SHARE, { country: 'AU' }],
    ] as const) {
      // `connections` such that the limit's share of them is `share`.
      const params = connectionsParams({ ...q, filters }, (SAMPLE_HEADROOM * q.limit) / share);
      expect(params.share).toBeCloseTo(share, 12);
      expect(connectionsTable(params.share)).toBe(CLIENT_SAMPLE_TABLE);
      const fromSample = await rows(connectionsSql(CLIENT_SAMPLE_TABLE), params);
      expect(fromSample.length, `share ${share}`).toBeGreaterThan(0);
      expect(fromSample, `share ${share}`).toEqual(await rows(connectionsSql('handshakes'), params));
    }
    // Over a sixteenth, the raw table: the client sample does not hold every client the share selects.
    expect(connectionsTable(CLIENT_SAMPLE_SHARE * 1.01)).toBe('handshakes');
  });

  it('never shows figures that come from fewer clients than the threshold: a sampled region that holds fewer is suppressed', async () => {
    const range = labRange;
    // Both regions are most of the range, so reading them again would sample them as thinly: they stay as
    // sampled, about 17 of 40 clients each, under the threshold of 20.
    const sampled = await whatIf(t.app.store.query, { ...range, limit: 300 }, 20);
    expect(sampled.sampled).toBe(true);
    expect(sampled.regions).toEqual([
      { country: 'AU', suppressed: true },
      { country: 'DE', suppressed: true },
      { country: 'NZ', suppressed: true },
    ]);
    // The whole counts shown regions only: none here, so it is held back too.
    expect([sampled.overall, sampled.overallSuppressed]).toEqual([null, true]);
  });

  it('leaves a region suppressed for its sample out of the whole too: nothing of it is recovered by difference', async () => {
    // A region of 30 heavy clients (150 connections each) beside one of 400 light ones: a sample of 1 000 of
    // 8 500 connections holds about 4 of the heavy region's clients, and reading it again would not help (it is
    // most of the range), so it is suppressed — and must not be in the whole either.
    const q = await usBeside('heavy.example', 90, 31, {
      country: 'JP',
      rtt: 120,
      fullTls: 240,
      clients: 30,
      records: 4500,
    });
    const r = await whatIf(t.app.store.query, { ...q, limit: 1000 }, 20);
    expect(r.sampled).toBe(true);
    expect(r.regions.find((x) => x.country === 'JP')).toEqual({ country: 'JP', suppressed: true });
    const us = r.regions.find((x) => x.country === 'US');
    const usAnalysed = us && 'result' in us ? us.result?.accounting.connections : undefined;
    expect(usAnalysed).toBeGreaterThan(0);
    // The whole is the shown region alone: the same connections, the same RTT (JP's 120 ms would pull it up).
    expect(r.connections).toBe(usAnalysed);
    expect(r.overall!.accounting.connections).toBe(usAnalysed);
    expect(r.overall!.accounting.rttMs).toBe(40);
  });

  it('reads a small region of a sampled range whole, so its figures come from all its clients, not the few an even sample holds', async () => {
    // A big region and a small one (25 clients).
    const q = await usBeside('wide.example', 60, 21, {
      country: 'NO',
      rtt: 30,
      fullTls: 60,
      clients: 25,
      records: 100,
    });
    // 1 000 of 4 100 connections: an even sample of about 30 % of the clients, some 8 of the small region's.
    const r = await whatIf(t.app.store.query, { ...q, limit: 1000 }, 20);
    expect(r.sampled).toBe(true);
    expect(r.connections).toBeLessThanOrEqual(1000);
    const region = (c: string) => r.regions.find((x) => x.country === c);
    // The small region is read whole: every one of its 100 connections, with its own RTT.
    const no = region('NO');
    expect(no && 'result' in no ? no.result?.accounting.connections : undefined).toBe(100);
    expect(no && 'result' in no ? no.result?.accounting.rttMs : undefined).toBe(30);
    expect(no && 'connections' in no ? no.connections : undefined).toBe(100);
    // The big one stays a sample (hundreds of connections, not its 4 000); the whole stays the even sample.
    const us = region('US');
    const usAnalysed = us && 'result' in us ? us.result?.accounting.connections : undefined;
    expect(usAnalysed).toBeGreaterThan(500);
    expect(usAnalysed).toBeLessThan(1000);
    expect(r.overall!.accounting.connections).toBe(r.connections);
    expect(r.overall!.accounting.connections).toBeLessThan(usAnalysed! + 100);
  });

  it('is scoped: one site needs a token, no token gives every site together', async () => {
    expect((await get('site=lab.example', '')).statusCode).toBe(401);
    expect((await get('site=lab.example', 'wrong-token-0123456789')).statusCode).toBe(401);
    const all = await get(`from=${now - 3 * hour}&to=${now + 1000}`, '');
    expect(all.statusCode).toBe(200);
    expect(all.json().site).toBeNull();
    expect(all.json().connections).toBe(900);
    expect((await get(`from=${now}&to=${now - 1}`)).statusCode).toBe(400);
    expect((await get(`country=de`)).statusCode).toBe(400);
  });
});

describe('what-if profile scenarios (need the site probe profile)', () => {
  const firefox = (c: Connection): Connection => ({ ...c, browser: 'firefox' });
  const profile = {
    ocspStapled: false,
    leafKeyType: 'rsa' as const,
    leafKeyBits: 4096,
    chainLength: 4,
    chainBytes: 16_000,
  };

  it('OCSP stapled: 2 round trips on first connections of online-checking browsers only', () => {
    // 60 % first visits from Firefox, 40 % repeats from Firefox: p50 and p75 fall on first visits.
    const conns = Array.from({ length: 100 }, (_, i) => firefox(tls12full(50, i % 5 >= 3)));
    const r = analyse(conns, undefined, profile)!;
    const ocsp = r.scenarios.find((s) => s.scenario === 'ocsp_stapled')!;
    expect(ocsp.affected).toBe(0.6);
    expect(ocsp.roundTripsSaved).toBe(1.2);
    // Chromium never fetches OCSP: nothing to save for it; a site that staples already: nothing either.
    expect(
      analyse(
        conns.map((c) => ({ ...c, browser: 'chrome' })),
        undefined,
        profile,
      )!.scenarios.find((s) => s.scenario === 'ocsp_stapled')!.affected,
    ).toBe(0);
    expect(
      analyse(conns, undefined, { ...profile, ocspStapled: true })!.scenarios.find(
        (s) => s.scenario === 'ocsp_stapled',
      )!.affected,
    ).toBe(0);
  });

  it('ECDSA leaf: the RSA signing time on full handshakes, none on resumed ones', () => {
    const conns = Array.from({ length: 10 }, () => tls12full(50, false));
    const saving = analyse(conns, undefined, profile)!.scenarios.find((s) => s.scenario === 'ecdsa_leaf')!;
    // 4.3 − 0.02 ms, on TTFB rounded to 0.1 ms.
    expect(saving.saving).toEqual({ p50: 4.3, p75: 4.3 });
    expect(saving.roundTripsSaved).toBe(0);
    const resumed = conns.map((c) => ({ ...c, resumed: true, handshakeClass: '1rtt' as const, tls: 50, connect: 100 }));
    expect(analyse(resumed, undefined, profile)!.scenarios.find((s) => s.scenario === 'ecdsa_leaf')!.affected).toBe(0);
    expect(
      analyse(conns, undefined, { ...profile, leafKeyType: 'ecdsa', leafKeyBits: 256 })!.scenarios.find(
        (s) => s.scenario === 'ecdsa_leaf',
      )!.affected,
    ).toBe(0);
  });

  it('shorter chain: one round trip when the flight drops under the initial window (TCP) or amplification limit (QUIC)', () => {
    const conns = Array.from({ length: 10 }, () => tls12full(50, false));
    // 16 000 + 1 200 bytes > 14 600 today; halved to 8 000 + 1 200 < 14 600: one round trip saved.
    expect(analyse(conns, undefined, profile)!.scenarios.find((s) => s.scenario === 'shorter_chain')!.saving).toEqual({
      p50: 50,
      p75: 50,
    });
    // 6 000 bytes in 4 certificates: under the window already, nothing to save over TCP.
    expect(
      analyse(conns, undefined, { ...profile, chainBytes: 6000 })!.scenarios.find(
        (s) => s.scenario === 'shorter_chain',
      )!.affected,
    ).toBe(0);
    // A chain of 2 is already short.
    expect(
      analyse(conns, undefined, { ...profile, chainLength: 2 })!.scenarios.find((s) => s.scenario === 'shorter_chain')!
        .affected,
    ).toBe(0);
  });
});

describe("what-if profile scenarios from the field split (each connection's own crypto facts)", () => {
  const profile = {
    ocspStapled: false,
    leafKeyType: 'rsa' as const,
    leafKeyBits: 4096,
    chainLength: 4,
    chainBytes: 16_000,
  };

  it('without a site profile, connections that carry facts are priced by their own; the others save nothing', () => {
    // Half RSA-4096 with a 4-certificate chain of 16 000 bytes, half ECDSA with 2 certificates.
    const conns = Array.from({ length: 10 }, (_, i): Connection => ({
      ...tls12full(50, false),
      crypto:
        i < 5
          ? { leafKeyType: 'rsa', leafKeyBits: 4096, chainLength: 4, chainBytes: 16_000 }
          : { leafKeyType: 'ecdsa', leafKeyBits: 256, chainLength: 2, chainBytes: 2_000 },
    }));
    const r = analyse(conns, undefined, null)!;
    const by = (s: string) => r.scenarios.find((x) => x.scenario === s)!;
    expect(by('ecdsa_leaf').affected).toBe(0.5);
    expect(by('shorter_chain').affected).toBe(0.5);
    expect(by('shorter_chain').roundTripsSaved).toBe(0.5);
    // No record says whether a response was stapled: nothing to save without the probe.
    expect(by('ocsp_stapled').affected).toBe(0);
    // No facts at all and no profile: the three scenarios are not offered.
    const names = analyse(
      conns.map(({ crypto: _, ...c }) => c),
      undefined,
      null,
    )!.scenarios.map((x) => x.scenario);
    for (const s of ['ecdsa_leaf', 'shorter_chain', 'ocsp_stapled']) expect(names).not.toContain(s);
  });

  it("a connection's own facts win over the site profile field by field; the profile fills the rest", () => {
    const own: Connection = {
      ...tls12full(50, false),
      browser: 'firefox',
      crypto: { leafKeyType: 'ecdsa', leafKeyBits: 256 },
    };
    expect(connectionCertFacts(own, profile)).toEqual({
      ocspStapled: false,
      leafKeyType: 'ecdsa',
      leafKeyBits: 256,
      chainLength: 4,
      chainBytes: 16_000,
    });
    const r = analyse([own, own, own], undefined, profile)!;
    // Its ECDSA leaf: nothing to gain from an ECDSA leaf; the chain and stapling come from the profile.
    expect(r.scenarios.find((x) => x.scenario === 'ecdsa_leaf')!.affected).toBe(0);
    expect(r.scenarios.find((x) => x.scenario === 'shorter_chain')!.affected).toBe(1);
    expect(r.scenarios.find((x) => x.scenario === 'ocsp_stapled')!.affected).toBe(1);
    expect(connectionCertFacts({ ...own, crypto: undefined }, null)).toBeNull();
  });
});
