/**
 * Crypto facts from the site probe for records that carry none (Chromium): the mapping (shared/src/probe-crypto.ts)
 * and the ingest path on a real store — a Chromium record of a registered site is stored with its latest
 * probe's facts (cryptoSource 'probe'), a Firefox record keeps its own ('observed'), an unregistered site's
 * record gets none.
 */
import { cryptoFactsFromProbe, type ProbeResult } from '@tlsrum/shared';
import { describe, expect, it } from 'vitest';
import { insertProbes } from '../../src/probes/store';
import { makeBatch, makeRecords, postBatch, storedRows, withApp } from '../support/helpers';

const result: ProbeResult = {
  url: 'https://shop.example.test/',
  host: 'shop.example.test',
  phases: { dns: 1, tcp: 10, tls: 12, ttfb: 20 },
  tls: {
    versions: { '1.0': false, '1.1': false, '1.2': true, '1.3': true },
    negotiated: { version: '1.3', cipher: 'TLS_AES_256_GCM_SHA384', group: 'X25519', alpn: 'h2' },
  },
  pq: { supported: true },
  cert: {
    chainLength: 3,
    chainBytes: 4812,
    leaf: {
      keyType: 'rsa',
      keyBits: 4096,
      signatureAlgorithm: 'sha256WithRSAEncryption',
      issuer: 'R3',
      daysToExpiry: 60,
    },
  },
  ocsp: { stapled: false },
  resumption: { '1.2': true, '1.3': true, ticketLifetimeS: 7200 },
  earlyData: { allowed: false },
  h3: { advertised: false, altSvc: null },
  errors: [],
};

describe('cryptoFactsFromProbe', () => {
  it('maps the probe to record fields; the group only where the probe could tell what a current browser gets', () => {
    expect(cryptoFactsFromProbe(result)).toEqual({
      group: 'X25519MLKEM768',
      cipher: 'TLS_AES_256_GCM_SHA384',
      certKeyType: 'rsa',
      certKeyBits: 4096,
      certChainLength: 3,
      certChainBytes: 4812,
      ocspStapled: false,
    });
    expect(cryptoFactsFromProbe({ ...result, pq: { supported: false } })!.group).toBe('X25519');
    // A probing OpenSSL without the hybrid group cannot say what Chromium (which offers it) negotiates.
    expect(cryptoFactsFromProbe({ ...result, pq: { supported: null } })).not.toHaveProperty('group');
    expect(cryptoFactsFromProbe({ ...result, ocsp: { stapled: null } })).not.toHaveProperty('ocspStapled');
    // A certificate that names no OCSP service: stapling does not apply (the what-if prices nothing for it).
    expect(cryptoFactsFromProbe({ ...result, ocsp: { stapled: false, responder: false } })).not.toHaveProperty(
      'ocspStapled',
    );
    expect(cryptoFactsFromProbe({ ...result, ocsp: { stapled: false, responder: true } })!.ocspStapled).toBe(false);
    expect(cryptoFactsFromProbe({ ...result, cert: { chainLength: 0, chainBytes: 0, leaf: null } })).toBeNull();
  });
});

describe('ingest: crypto facts of registered sites from their latest probe', () => {
  it('Chromium records get the probe’s facts (probe), Firefox keeps its own (observed), unregistered sites none', async () => {
    await withApp({}, async (t) => {
      await t.app.sites.register('shop.example.test', 'x'.repeat(64));
      const at = Date.now() - 60_000;
      await insertProbes(t.app.store.query, [
        {
          site: 'shop.example.test',
          hostname: 'shop.example.test',
          at: at - 3_600_000,
          outcome: {
            result: { ...result, ocsp: { stapled: true } },
            identity: { leafSpkiSha256: 'a', chainSha256: 'b' },
          },
        },
        {
          site: 'shop.example.test',
          hostname: 'shop.example.test',
          at,
          outcome: { result, identity: { leafSpkiSha256: 'a', chainSha256: 'b' } },
        },
      ]);
      await t.app.siteCrypto.refresh(t.app.store.query, t.app.sites.list());
      // The helper's record carries Firefox's fields: the Chromium ones carry none.
      const bare = (n: number, site: string | null) =>
        makeRecords(n, { site, browser: 'chrome' }).map(
          ({ group, cipher, signatureScheme, certChainLength, ...r }) => (
            void [group, cipher, signatureScheme, certChainLength],
            r
          ),
        );
      const firefox = makeRecords(2, {
        site: 'shop.example.test',
        browser: 'firefox',
        group: 'X25519',
        certKeyType: 'ecdsa',
        certKeyBits: 256,
        certChainLength: 2,
      });
      for (const records of [bare(3, 'shop.example.test'), bare(2, 'other.example.test'), firefox])
        expect((await postBatch(t.app, makeBatch(records))).statusCode).toBe(202);
      const rows = await storedRows(t.app);
      const pick = (r: Record<string, unknown>) => [
        r.site,
        r.browser,
        r.cryptoSource,
        r.keyExchangeGroup,
        r.certKeyType,
        r.certKeyBits,
        r.certChainLength,
        r.certChainBytes,
        r.ocspStapled,
        r.cipher,
      ];
      const seen = rows.map(pick).map((x) => JSON.stringify(x));
      // The latest probe, not the earlier one that stapled.
      expect(
        seen.filter(
          (s) =>
            s ===
            JSON.stringify([
              'shop.example.test',
              'chrome',
              'probe',
              'X25519MLKEM768',
              'rsa',
              4096,
              3,
              4812,
              false,
              'TLS_AES_256_GCM_SHA384',
            ]),
        ),
      ).toHaveLength(3);
      expect(
        seen.filter((s) => s === JSON.stringify(['', 'chrome', '', '', '', null, null, null, null, ''])),
      ).toHaveLength(2);
      const fx = rows.filter((r) => r.browser === 'firefox');
      expect(fx.map(pick)[0]).toEqual([
        'shop.example.test',
        'firefox',
        'observed',
        'X25519',
        'ecdsa',
        256,
        2,
        null,
        null,
        fx[0]!.cipher,
      ]);
      expect(fx).toHaveLength(2);
    });
  });
});
