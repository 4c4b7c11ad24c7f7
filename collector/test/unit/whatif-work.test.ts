/**
 * The what-if's long work hands the collector's thread back: run between requests, modelling and
 * summarising pause between slices of their loops for whatever else is waiting, give exactly the
 * figures they give run at once, and stop when the reader they work for has gone. A model cut to some of
 * its regions (the report models every region it may show while it reads small ones again) gives exactly
 * what modelling those regions' connections alone gives.
 */
import { describe, expect, it } from 'vitest';
import {
  keepRegions,
  modelling,
  summarisingAll,
  summarisingRegion,
  type Connection,
  type Modelled,
} from '../../src/whatif/model';
import { runBetweenRequests, runNow, SLICE } from '../../src/platform/work';
import { querySignal } from '../../src/platform/store/query-pool';
import { countTurns } from '../support/turns';

/** Connections of three regions, of every transport, class and repeat, with spread timings. */
function connections(n: number): (Connection & { country: string })[] {
  const classes = ['full-2rtt', '1rtt', '0rtt', 'unknown'] as const;
  return Array.from({ length: n }, (_, i) => {
    const rtt = 20 + ((i * 37) % 180);
    const quic = i % 7 === 0;
    return {
      country: ['DE', 'US', 'JP'][i % 3]!,
      dns: i % 4 === 0 ? 0 : 5 + (i % 30),
      tcp: quic ? 0 : rtt,
      tls: 2 * rtt + (i % 11),
      connect: (quic ? 1 : 3) * rtt,
      ttfb: rtt + 10 + (i % 50),
      transport: quic ? 'quic' : 'tcp',
      tlsVersion: i % 3 === 0 ? '1.2' : '1.3',
      handshakeClass: classes[i % 4]!,
      resumed: i % 5 === 0,
      repeat: i % 2 === 0,
      browser: i % 2 ? 'firefox' : 'chrome',
      ...(i % 9 === 0
        ? { crypto: { leafKeyType: 'rsa' as const, leafKeyBits: 2048, chainLength: 3, chainBytes: 15_000 } }
        : {}),
    };
  });
}

const regionOf = (c: Connection) => (c as Connection & { country: string }).country;

/** A site profile (its probe's facts): the profile scenarios then apply to every connection. */
const profile = {
  ocspStapled: false,
  leafKeyType: 'ecdsa' as const,
  leafKeyBits: 256,
  chainLength: 2,
  chainBytes: 3000,
};

describe('the what-if between requests', () => {
  it('pauses between slices for what waits: other callbacks run while it models and summarises', async () => {
    const conns = connections(4 * SLICE);
    const turns = countTurns();
    // A budget of 0 ms pauses at every point it may: the passes over 4 slices of connections.
    const m = await runBetweenRequests(modelling(conns, regionOf, null), 0);
    const afterModel = turns.count;
    await runBetweenRequests(summarisingAll(m), 0);
    expect(afterModel).toBeGreaterThanOrEqual(4 * m.effects.length);
    expect(turns.stop() - afterModel).toBeGreaterThanOrEqual(4);
  });

  it('gives the figures it gives run at once, for the whole and each region', async () => {
    const conns = connections(2 * SLICE + 123);
    const now = runNow(modelling(conns, regionOf, profile));
    const paused = await runBetweenRequests(modelling(conns, regionOf, profile), 0);
    expect(await runBetweenRequests(summarisingAll(paused), 0)).toEqual(runNow(summarisingAll(now)));
    for (const country of ['DE', 'US', 'JP', 'FR'])
      expect(await runBetweenRequests(summarisingRegion(paused, country), 0)).toEqual(
        runNow(summarisingRegion(now, country)),
      );
    expect(runNow(summarisingAll(now))!.accounting.connections).toBe(conns.length);
  });

  it('stops at its next pause once the reader has gone, with the reason the request was given', async () => {
    const conns = connections(4 * SLICE);
    const gone = new AbortController();
    let slices = 0;
    const work = modelling(conns, regionOf, null);
    const counted = (function* () {
      for (;;) {
        const step = work.next();
        if (step.done) return step.value;
        if (++slices === 3) gone.abort(new Error('the client went away'));
        yield;
      }
    })();
    await expect(querySignal.run(gone.signal, () => runBetweenRequests(counted, 0))).rejects.toThrow(
      'the client went away',
    );
    expect(slices).toBe(3);
    // Without a request (a command-line caller) it runs to the end.
    expect((await runBetweenRequests(modelling(conns, regionOf, null), 0)).conns).toHaveLength(conns.length);
  });

  it('kept to some regions, a model gives what modelling their connections alone gives', () => {
    const conns = connections(3 * SLICE + 57);
    // Only Germany's connections carry crypto facts of their own (some of them): without Germany and without
    // the site's profile, the profile's scenarios have nothing to work from and are left out, as they are then.
    const cryptoInGermany = conns.map((c) => (c.country === 'DE' ? c : { ...c, crypto: undefined }));
    const summaries = (m: Modelled) => ({
      all: runNow(summarisingAll(m)),
      regions: ['DE', 'US', 'JP'].map((country) => runNow(summarisingRegion(m, country))),
    });
    for (const [all, site] of [
      [cryptoInGermany, null],
      [cryptoInGermany, profile],
      [conns, null],
    ] as const)
      for (const keep of [['DE', 'US'], ['US', 'JP'], ['JP'], ['DE', 'US', 'JP'], []]) {
        const kept = keepRegions(runNow(modelling(all, regionOf, site)), new Set(keep));
        const alone = runNow(
          modelling(
            all.filter((c) => keep.includes(c.country)),
            regionOf,
            site,
          ),
        );
        expect(kept.conns).toEqual(alone.conns);
        expect(kept.effects.map((e) => e.scenario)).toEqual(alone.effects.map((e) => e.scenario));
        expect(summaries(kept)).toEqual(summaries(alone));
      }
    // The test is not vacuous: without Germany and the profile, the profile's scenarios are gone.
    const everyRegion = runNow(modelling(cryptoInGermany, regionOf, null));
    expect(keepRegions(everyRegion, new Set(['US', 'JP'])).effects.length).toBeLessThan(everyRegion.effects.length);
  });
});
