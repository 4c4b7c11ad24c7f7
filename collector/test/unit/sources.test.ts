/** Which table or rollup cut a query reads: the smallest that holds every dimension it needs. */
import { describe, expect, it } from 'vitest';
import { buildCellSql, chooseTable, ROLLUP_SITES_CAP, type CellQuery } from '../../src/query/cells';
import {
  chooseReadTable,
  hourlyCutNumber,
  rangeColumn,
  ROLLUP_CLIENTS_CAP,
  type ReadTableNeeds,
} from '../../src/query/sources';
import type { Dimension } from '../../src/query/dimensions';
import { ALL_PHASES, HANDSHAKE_PHASES } from '../../src/query/percentiles';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const end = Date.UTC(2026, 10, 23);
const month = { from: end - 30 * DAY, to: end };
const needs = (n: Partial<ReadTableNeeds>): ReadTableNeeds => ({
  table: 'rollup',
  dimensions: [],
  filters: [],
  site: null,
  minClients: 20,
  ...month,
  ...n,
});

describe('chooseReadTable', () => {
  it('reads the smallest cut holding the columns of every dimension and filter', () => {
    expect(chooseReadTable(needs({ dimensions: ['stack', 'mode'] }))).toMatchObject({
      name: 'rollup-all-sites-by-protocol-tlsVersion-resumed-handshakeClass',
      where: `cut = ${0b111110000}`,
    });
    expect(chooseReadTable(needs({ dimensions: ['country'] }))).toMatchObject({
      name: 'rollup-all-sites-by-country',
      where: `cut = ${0b101111111}`,
    });
    expect(chooseReadTable(needs({ dimensions: ['stack'], bucket: 'day' })).name).toBe(
      'rollup-all-sites-by-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(chooseReadTable(needs({ bucket: 'day' })).name).toBe('rollup-all-sites-by-hour');
    expect(chooseReadTable(needs({ dimensions: ['tlsVersion'], site: 'a.example.com' }))).toMatchObject({
      name: 'rollup-site-by-protocol-tlsVersion-resumed-handshakeClass',
      where: `cut = ${0b011110000}`,
    });
    expect(chooseReadTable(needs({ filters: ['country'], site: 'a.example.com' }))).toMatchObject({
      name: 'rollup-site-by-country',
      where: `cut = ${0b001111111}`,
    });
    // Filters and dimensions the four-cut rollup did not hold.
    expect(chooseReadTable(needs({ dimensions: ['stack', 'mode'], filters: ['browser'] })).name).toBe(
      'rollup-all-sites-by-browser-source-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(chooseReadTable(needs({ dimensions: ['source'] })).name).toBe(
      'rollup-all-sites-by-browser-source-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(chooseReadTable(needs({ dimensions: ['country', 'stack'] })).name).toBe(
      'rollup-all-sites-by-country-protocol-tlsVersion',
    );
    expect(chooseReadTable(needs({ dimensions: ['country', 'mode'] })).name).toBe(
      'rollup-all-sites-by-country-resumed-handshakeClass',
    );
    expect(chooseReadTable(needs({ dimensions: ['stack'], filters: ['country'] })).name).toBe(
      'rollup-all-sites-by-country-protocol-tlsVersion',
    );
    expect(chooseReadTable(needs({ dimensions: ['stack', 'mode'], filters: ['country'] })).name).toBe(
      'rollup-all-sites-by-country-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(chooseReadTable(needs({ dimensions: ['country'], filters: ['browser'], site: 'a.example.com' })).name).toBe(
      'rollup-site-by-country-browser-source',
    );
    expect(chooseReadTable(needs({ bucket: 'hour', dimensions: ['stack'] }))).toMatchObject({
      name: 'rollup-all-sites-by-hour-protocol-tlsVersion',
      hourTime: 'hour',
    });
  });

  it('reads one crypto column, with or without the mix columns, from its own cut; two or more from the cut of their combinations', () => {
    const crypto = (n: Partial<ReadTableNeeds>) => {
      const t = chooseReadTable(needs(n));
      return [t.table, t.name, t.where];
    };
    // cut = grouping(site, kxGroup, certKey, chainLength, cipherSuite): a bit for each column aggregated away.
    expect(crypto({ dimensions: ['group'] })).toEqual([
      'handshakes_crypto_cuts',
      'rollup-all-sites-by-kxGroup-protocol-tlsVersion-resumed-handshakeClass',
      `cut = ${0b10111}`,
    ]);
    expect(crypto({ dimensions: ['pq'], site: 'a.example.com' })).toEqual([
      'handshakes_crypto_cuts',
      'rollup-site-by-kxGroup-protocol-tlsVersion-resumed-handshakeClass',
      `cut = ${0b00111}`,
    ]);
    expect(crypto({ dimensions: ['certKey'], filters: ['certKey'] })[1]).toBe(
      'rollup-all-sites-by-certKey-protocol-tlsVersion-resumed-handshakeClass',
    );
    // A cell's mix protection splits it by the mix columns: the same cut holds them.
    expect(crypto({ dimensions: ['cipher', 'stack', 'mode'] })[1]).toBe(
      'rollup-all-sites-by-cipherSuite-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(crypto({ dimensions: ['chainLength'] })[2]).toBe(`cut = ${0b11101}`);
    expect(crypto({ dimensions: ['cipher'], bucket: 'day' })[2]).toBe(`cut = ${0b11110}`);
    expect(crypto({ dimensions: ['pq', 'certKey'] })[0]).toBe('handshakes_crypto_per_day');
    expect(crypto({ dimensions: ['cipher'], filters: ['group'] })[0]).toBe('handshakes_crypto_per_day');
  });

  it("reads one crypto column by the hour, and such a cell's mix columns, for every site together from the hourly crypto cuts", () => {
    // cut = grouping(kxGroup, certKey, chainLength, cipherSuite, sigScheme): a bit for each column aggregated away.
    const mixes = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];
    const last24h = { from: month.to - 19 * HOUR, to: month.to + 5 * HOUR };
    expect(chooseReadTable(needs({ dimensions: ['pq'], bucket: 'hour' }))).toMatchObject({
      table: 'handshakes_crypto_per_hour',
      name: 'rollup-all-sites-hourly-by-kxGroup',
      cut: ['hour', 'kxGroup', ...mixes],
      where: `cut = ${0b01111}`,
      siteCounts: true,
    });
    expect(chooseReadTable(needs({ dimensions: ['certKey', 'stack', 'mode'], ...last24h }))).toMatchObject({
      name: 'rollup-all-sites-hourly-by-certKey',
      where: `cut = ${0b10111}`,
    });
    expect(chooseReadTable(needs({ dimensions: ['chainLength'], ...last24h })).where).toBe(`cut = ${0b11011}`);
    expect(chooseReadTable(needs({ dimensions: ['stack'], filters: ['cipher'], bucket: 'hour' })).where).toBe(
      `cut = ${0b11101}`,
    );
    expect(chooseReadTable(needs({ dimensions: ['signatureScheme'], bucket: 'hour' })).where).toBe(`cut = ${0b11110}`);
    // One site's, or every site read one site each: its rows of the range in the raw table.
    expect(chooseReadTable(needs({ dimensions: ['group'], site: 'a.example.com', bucket: 'hour' })).name).toBe('raw');
    expect(chooseReadTable(needs({ dimensions: ['group'], perSite: true, bucket: 'hour' })).name).toBe('raw');
    // Whole days still read the daily cuts.
    expect(chooseReadTable(needs({ dimensions: ['group'] })).table).toBe('handshakes_crypto_cuts');
  });

  it("reads country with a browser, source or evidence column, and such a cell's mix columns, from the country cuts", () => {
    // cut = grouping(site, browser, source, versionEvidence, cryptoSource): a bit for each column aggregated away.
    const mixes = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];
    expect(chooseReadTable(needs({ dimensions: ['country', 'stack', 'mode'], filters: ['browser'] }))).toMatchObject({
      table: 'handshakes_country_cuts',
      name: `rollup-all-sites-by-${['country', 'browser', 'source', ...mixes].join('-')}`,
      where: `cut = ${0b10011}`,
    });
    expect(chooseReadTable(needs({ dimensions: ['country', 'source', 'mode'], site: 'a.example.com' }))).toMatchObject({
      where: `cut = ${0b00011}`,
    });
    expect(chooseReadTable(needs({ dimensions: ['country', 'evidence', 'stack'] }))).toMatchObject({
      name: `rollup-all-sites-by-${['country', 'versionEvidence', ...mixes].join('-')}`,
      where: `cut = ${0b11101}`,
    });
    expect(chooseReadTable(needs({ dimensions: ['stack'], filters: ['country', 'cryptoSource'] }))).toMatchObject({
      name: `rollup-all-sites-by-${['country', 'cryptoSource', ...mixes].join('-')}`,
      where: `cut = ${0b11110}`,
    });
    // One site's country with a browser alone (no mix columns): the smaller daily cut of migration 0011.
    expect(chooseReadTable(needs({ dimensions: ['country'], filters: ['browser'], site: 'a.example.com' })).table).toBe(
      'handshakes_cuts',
    );
    // Not whole days: these cuts are daily.
    expect(chooseReadTable(needs({ dimensions: ['country', 'evidence'], from: month.from + HOUR })).name).toBe('raw');
  });

  it("reads the browser by the crypto facts' source under a country filter, and such a cell's mix columns, from the country coverage cuts over whole days, one site each", () => {
    const mixes: Dimension[] = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];
    // One site's, every site's with a token (its sites' rows summed), and every site's read one site each.
    for (const [site, perSite] of [
      ['a.example.com', false],
      [null, false],
      [null, true],
    ] as const)
      for (const dimensions of [
        ['browser', 'cryptoSource'],
        ['browser', 'cryptoSource', ...mixes],
      ] as Dimension[][])
        expect(
          chooseReadTable(needs({ dimensions, filters: ['country'], site, perSite })),
          `${site} ${perSite}`,
        ).toMatchObject({
          table: 'handshakes_country_coverage_cuts',
          name: `rollup-site-by-${['country', 'browser', 'cryptoSource', ...mixes].join('-')}`,
          where: 'cut = 0',
          sites: 'one',
          sumsSites: true,
        });
    // Countries by the crypto facts' source under a browser filter too.
    expect(chooseReadTable(needs({ dimensions: ['country', 'cryptoSource'], filters: ['browser'] })).table).toBe(
      'handshakes_country_coverage_cuts',
    );
    // Two of the three still read the smaller cuts.
    expect(chooseReadTable(needs({ dimensions: ['browser', 'cryptoSource'] })).table).toBe(
      'handshakes_source_browser_cuts',
    );
    expect(chooseReadTable(needs({ dimensions: ['cryptoSource', ...mixes], filters: ['country'] })).table).toBe(
      'handshakes_country_cuts',
    );
    expect(chooseReadTable(needs({ dimensions: ['browser', ...mixes], filters: ['country'] })).table).toBe(
      'handshakes_country_cuts',
    );
    // By the hour, or under a source filter as well: the raw table.
    expect(
      chooseReadTable(needs({ dimensions: ['browser', 'cryptoSource'], filters: ['country'], bucket: 'hour' })).name,
    ).toBe('raw');
    expect(
      chooseReadTable(needs({ dimensions: ['browser', 'cryptoSource'], filters: ['country', 'source'] })).name,
    ).toBe('raw');
  });

  it("reads country with the key-exchange group or post-quantum use, and such a cell's mix columns, from the country and group cuts", () => {
    const mixes = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];
    expect(chooseReadTable(needs({ dimensions: ['country', 'stack'], filters: ['pq'] }))).toMatchObject({
      table: 'handshakes_country_group_cuts',
      name: `rollup-all-sites-by-${['country', 'kxGroup', ...mixes].join('-')}`,
      where: 'cut = 1',
    });
    expect(chooseReadTable(needs({ dimensions: ['country', 'group', 'stack'], site: 'a.example.com' }))).toMatchObject({
      where: 'cut = 0',
    });
    // The group without country: the smaller crypto cuts (0015).
    expect(chooseReadTable(needs({ dimensions: ['pq'] })).table).toBe('handshakes_crypto_cuts');
    // Country with another crypto column: the country and crypto cuts (0029).
    expect(chooseReadTable(needs({ dimensions: ['country', 'mode'], filters: ['certKey'] })).table).toBe(
      'handshakes_country_crypto_cuts',
    );
  });

  it("reads country with the certificate key, chain length, cipher or signature scheme, and such a cell's mix columns, for every site together from the country and crypto cuts over whole days", () => {
    // cut = grouping(certKey, chainLength, cipherSuite, sigScheme): a bit for each column aggregated away.
    const mixes = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];
    expect(chooseReadTable(needs({ dimensions: ['country', 'stack', 'mode'], filters: ['certKey'] }))).toMatchObject({
      table: 'handshakes_country_crypto_cuts',
      name: 'rollup-all-sites-by-country-certKey',
      cut: ['country', 'certKey', ...mixes],
      where: `cut = ${0b0111}`,
      siteCounts: true,
    });
    expect(chooseReadTable(needs({ dimensions: ['country', 'chainLength', 'stack', 'mode'] })).where).toBe(
      `cut = ${0b1011}`,
    );
    expect(chooseReadTable(needs({ dimensions: ['country', 'stack'], filters: ['cipher'] })).where).toBe(
      `cut = ${0b1101}`,
    );
    expect(chooseReadTable(needs({ dimensions: ['country', 'signatureScheme', 'stack'] })).where).toBe(
      `cut = ${0b1110}`,
    );
    // The crypto column without country: the smaller crypto and signature cuts.
    expect(chooseReadTable(needs({ dimensions: ['cipher'] })).table).toBe('handshakes_crypto_cuts');
    expect(chooseReadTable(needs({ dimensions: ['signatureScheme'] })).table).toBe('handshakes_signature_cuts');
    // One site's, or every site read one site each: its rows of the range in the raw table.
    expect(chooseReadTable(needs({ dimensions: ['country'], filters: ['cipher'], site: 'a.example.com' })).name).toBe(
      'raw',
    );
    expect(chooseReadTable(needs({ dimensions: ['country'], filters: ['cipher'], perSite: true })).name).toBe('raw');
    // Not whole days, or two crypto columns with country: no cut holds them.
    expect(chooseReadTable(needs({ dimensions: ['country'], filters: ['cipher'], from: month.from + HOUR })).name).toBe(
      'raw',
    );
    expect(chooseReadTable(needs({ dimensions: ['country', 'cipher'], filters: ['certKey'] })).name).toBe('raw');
  });

  it('reads the cells of country with one browser, source, evidence or crypto column, and nothing else, from the country pairs of every site together over whole days', () => {
    // cut = grouping(browser, source, versionEvidence, cryptoSource, kxGroup, certKey, chainLength, cipherSuite,
    // sigScheme): a bit for each column aggregated away, the first the highest.
    const pairs: [Dimension, string, number][] = [
      ['browser', 'browser', 0b011111111],
      ['source', 'source', 0b101111111],
      ['versionEvidence', 'versionEvidence', 0b110111111],
      ['evidence', 'versionEvidence', 0b110111111],
      ['cryptoSource', 'cryptoSource', 0b111011111],
      ['group', 'kxGroup', 0b111101111],
      ['pq', 'kxGroup', 0b111101111],
      ['certKey', 'certKey', 0b111110111],
      ['chainLength', 'chainLength', 0b111111011],
      ['cipher', 'cipherSuite', 0b111111101],
      ['signatureScheme', 'sigScheme', 0b111111110],
    ];
    for (const [dimension, column, cut] of pairs) {
      const pair = {
        table: 'handshakes_country_pairs',
        name: `rollup-all-sites-by-country-${column}-alone`,
        cut: ['country', column],
        where: `cut = ${cut}`,
        sites: 'all',
        siteCounts: true,
      };
      // Countries compared by it, the map under a filter on it, a column under a country filter, by day.
      expect(chooseReadTable(needs({ dimensions: ['country', dimension] })), dimension).toMatchObject(pair);
      expect(chooseReadTable(needs({ dimensions: ['country'], filters: [dimension] })), dimension).toMatchObject(pair);
      expect(chooseReadTable(needs({ dimensions: [dimension], filters: ['country'] })), dimension).toMatchObject(pair);
      expect(chooseReadTable(needs({ dimensions: ['country', dimension], bucket: 'day' })), dimension).toMatchObject(
        pair,
      );
      // Not with a mix column (a cell's mix protection), another column, for one site, read one site each, by
      // the hour or over a range not in whole days; nor for one of the two alone, which smaller cuts hold.
      const not = (n: Partial<ReadTableNeeds>) =>
        expect(chooseReadTable(needs(n)).table, dimension).not.toBe(pair.table);
      not({ dimensions: ['country', dimension, 'stack'] });
      not({ dimensions: ['country', dimension], filters: [dimension === 'browser' ? 'source' : 'browser'] });
      not({ dimensions: ['country', dimension], site: 'a.example.com' });
      not({ dimensions: ['country', dimension], perSite: true });
      not({ dimensions: ['country', dimension], bucket: 'hour' });
      not({ dimensions: ['country', dimension], from: month.from + HOUR });
      not({ dimensions: [dimension] });
      not({ dimensions: ['country'] });
      // The phases chart: its rows keep the handshake's phases only, not DNS and TCP.
      expect(chooseReadTable(needs({ dimensions: ['country', dimension], phases: HANDSHAKE_PHASES })).table).toBe(
        pair.table,
      );
      not({ dimensions: ['country', dimension], phases: ALL_PHASES });
    }
    // Every site together answered without a token counts its sites from the same rows (no join of a per-site cut).
    const { sql } = buildCellSql(
      {
        table: 'rollup',
        filters: { ...month, site: null, clientCap: 0, minSites: 3 },
        dimensions: ['country', 'cipher'],
        metrics: 'handshake',
        limit: 100,
      },
      20,
    );
    expect(sql).toContain('FROM handshakes_country_pairs');
    expect(sql).toContain('uniqUpToMerge(99)(sites) AS n_sites');
    expect(sql).not.toContain('JOIN');
  });

  it("reads the evidence or the crypto facts' source without country, and such a cell's mix columns, from the evidence cuts over whole days", () => {
    // cut = grouping(site, versionEvidence, cryptoSource): a bit for each column aggregated away.
    const mixes = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];
    expect(chooseReadTable(needs({ dimensions: ['evidence'] }))).toMatchObject({
      table: 'handshakes_evidence_cuts',
      name: `rollup-all-sites-by-${['versionEvidence', ...mixes].join('-')}`,
      where: `cut = ${0b101}`,
    });
    expect(chooseReadTable(needs({ dimensions: ['stack', 'mode'], filters: ['evidence'] })).name).toBe(
      `rollup-all-sites-by-${['versionEvidence', ...mixes].join('-')}`,
    );
    expect(chooseReadTable(needs({ dimensions: ['cryptoSource', 'tlsVersion'], site: 'a.example.com' }))).toMatchObject(
      {
        name: `rollup-site-by-${['cryptoSource', ...mixes].join('-')}`,
        where: `cut = ${0b010}`,
      },
    );
    // Without the evidence, the smaller cuts of migration 0011 still answer.
    expect(chooseReadTable(needs({ dimensions: ['stack', 'mode'] })).table).toBe('handshakes_cuts');
    // The signature scheme, alone or as a filter, with the mix columns.
    expect(chooseReadTable(needs({ dimensions: ['signatureScheme'] }))).toMatchObject({
      table: 'handshakes_signature_cuts',
      name: 'rollup-all-sites-by-sigScheme-protocol-tlsVersion-resumed-handshakeClass',
      where: 'cut = 1',
    });
    expect(
      chooseReadTable(needs({ dimensions: ['stack', 'mode'], filters: ['signatureScheme'], site: 'a.example.com' })),
    ).toMatchObject({ table: 'handshakes_signature_cuts', where: 'cut = 0' });
    // Hours: the hourly grain's evidence cut.
    expect(chooseReadTable(needs({ dimensions: ['evidence'], bucket: 'hour' })).table).toBe('handshakes_per_hour');
  });

  it("reads a crypto or evidence column under a source or a browser filter (a site's view on its own pages), and such a cell's mix columns, from the source and browser cuts over whole days", () => {
    // cut = grouping(site, source, browser, kxGroup, certKey, chainLength, cipherSuite, sigScheme,
    // versionEvidence, cryptoSource): a bit for each column aggregated away, the site's the highest.
    const mixes = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'];
    const site = 'a.example.com';
    const columns: [Dimension, string, number][] = [
      ['group', 'kxGroup', 0b0111111],
      ['pq', 'kxGroup', 0b0111111],
      ['certKey', 'certKey', 0b1011111],
      ['chainLength', 'chainLength', 0b1101111],
      ['cipher', 'cipherSuite', 0b1110111],
      ['signatureScheme', 'sigScheme', 0b1111011],
      ['versionEvidence', 'versionEvidence', 0b1111101],
      ['evidence', 'versionEvidence', 0b1111101],
      ['cryptoSource', 'cryptoSource', 0b1111110],
    ];
    const byWhom: ['source' | 'browser', number][] = [
      ['source', 0b01_0000000],
      ['browser', 0b10_0000000],
    ];
    for (const [by, byBits] of byWhom)
      for (const [dimension, column, bits] of columns) {
        const read = (s: string | null) => chooseReadTable(needs({ dimensions: [dimension], filters: [by], site: s }));
        expect(read(site), `${by} ${dimension}`).toMatchObject({
          table: 'handshakes_source_browser_cuts',
          name: `rollup-site-by-${[by, column, ...mixes].join('-')}`,
          where: `cut = ${byBits | bits}`,
          few: true,
        });
        // Every site together: the same rows of every site, summed (the cut keeps no rows of every site together).
        expect(read(null), `${by} ${dimension}`).toMatchObject({
          table: 'handshakes_source_browser_cuts',
          where: `cut = ${byBits | bits}`,
          sites: 'one',
          sumsSites: true,
        });
      }
    // A cell's joint cells (its dimension with the mix columns) are in the same cut.
    expect(
      chooseReadTable(needs({ dimensions: ['certKey', ...mixes] as Dimension[], filters: ['source'], site })).table,
    ).toBe('handshakes_source_browser_cuts');
    // Without either filter, the smaller cuts without them still answer; by the hour, or under both filters at
    // once, one site's read the raw table.
    expect(chooseReadTable(needs({ dimensions: ['certKey'], site })).table).toBe('handshakes_crypto_cuts');
    expect(chooseReadTable(needs({ dimensions: ['versionEvidence'], site })).table).toBe('handshakes_evidence_cuts');
    expect(
      chooseReadTable(needs({ dimensions: ['certKey'], filters: ['source'], site, from: month.from + HOUR })).name,
    ).toBe('raw');
    expect(chooseReadTable(needs({ dimensions: ['certKey'], filters: ['source', 'browser'], site })).name).toBe('raw');
  });

  it("reads a crypto or evidence column under a filter on another one, and such a cell's mix columns, from the pair cuts over whole days; the browser's crypto facts' source under a crypto or evidence filter too", () => {
    // cut = grouping(site, browser, kxGroup, certKey, chainLength, cipherSuite, sigScheme, versionEvidence,
    // cryptoSource): a bit for each column aggregated away, the site's the highest.
    const mixes = ['protocol', 'tlsVersion', 'resumed', 'handshakeClass'] as Dimension[];
    const site = 'a.example.com';
    const bit = {
      kxGroup: 1 << 6,
      certKey: 1 << 5,
      chainLength: 1 << 4,
      cipherSuite: 1 << 3,
      sigScheme: 1 << 2,
      versionEvidence: 1 << 1,
      cryptoSource: 1 << 0,
    };
    const BROWSER = 1 << 7;
    const SITE = 1 << 8;
    const all = 0b111111111;
    const columns: [Dimension, keyof typeof bit][] = [
      ['group', 'kxGroup'],
      ['certKey', 'certKey'],
      ['chainLength', 'chainLength'],
      ['cipher', 'cipherSuite'],
      ['signatureScheme', 'sigScheme'],
      ['evidence', 'versionEvidence'],
      ['cryptoSource', 'cryptoSource'],
    ];
    for (const [i, [dimension, a]] of columns.entries())
      for (const [filter, b] of columns.slice(i + 1)) {
        const order = Object.keys(bit);
        const [first, second] = order.indexOf(a) < order.indexOf(b) ? [a, b] : [b, a];
        const read = (s: string | null, dimensions: Dimension[]) =>
          chooseReadTable(needs({ dimensions, filters: [filter], site: s }));
        // A cell's joint cells (the cell by the mix columns), per site and every site; the cell itself too, but
        // for two of the four crypto columns, whose combinations (0009) hold a few rows a day.
        const combined = [a, b].every((c) => ['kxGroup', 'certKey', 'chainLength', 'cipherSuite'].includes(c));
        if (combined) expect(read(site, [dimension]).table).toBe('handshakes_crypto_per_day');
        for (const dimensions of combined ? [[dimension, ...mixes]] : [[dimension], [dimension, ...mixes]]) {
          expect(read(site, dimensions), `${dimension} ${filter}`).toMatchObject({
            table: 'handshakes_crypto_pair_cuts',
            name: `rollup-site-by-${[first, second, ...mixes].join('-')}`,
            where: `cut = ${all & ~SITE & ~bit[a] & ~bit[b]}`,
            few: true,
          });
          // Every site together: the same rows of every site, summed (the cut has no rows of every site together).
          expect(read(null, dimensions), `${dimension} ${filter}`).toMatchObject({
            table: 'handshakes_crypto_pair_cuts',
            where: `cut = ${all & ~SITE & ~bit[a] & ~bit[b]}`,
            sites: 'one',
            sumsSites: true,
          });
        }
      }
    // The post-quantum line reads the key-exchange group.
    expect(chooseReadTable(needs({ dimensions: ['pq', ...mixes], filters: ['cipher'] })).table).toBe(
      'handshakes_crypto_pair_cuts',
    );
    // The browser by the crypto facts' source, under a filter on one of the other six columns.
    for (const [filter, column] of columns.slice(0, 6))
      expect(
        chooseReadTable(needs({ dimensions: ['browser', 'cryptoSource'], filters: [filter], site })),
        filter,
      ).toMatchObject({
        table: 'handshakes_crypto_pair_cuts',
        name: `rollup-site-by-${['browser', column, 'cryptoSource', ...mixes].join('-')}`,
        where: `cut = ${all & ~SITE & ~BROWSER & ~bit[column] & ~bit.cryptoSource}`,
      });
    // One column alone, or with the source or the browser, still reads the smaller cuts; three columns, or a
    // range not in whole days, the raw table.
    expect(chooseReadTable(needs({ dimensions: ['certKey'] })).table).toBe('handshakes_crypto_cuts');
    expect(chooseReadTable(needs({ dimensions: ['browser', 'cryptoSource'] })).table).toBe(
      'handshakes_source_browser_cuts',
    );
    expect(chooseReadTable(needs({ dimensions: ['signatureScheme'], filters: ['certKey', 'evidence'] })).name).toBe(
      'raw',
    );
    expect(
      chooseReadTable(needs({ dimensions: ['signatureScheme'], filters: ['certKey'], from: month.from + HOUR })).name,
    ).toBe('raw');
  });

  it('reads the raw table when no cut has the columns, the grain or the range, or when asked to', () => {
    expect(chooseReadTable(needs({ dimensions: ['country', 'stack'], filters: ['browser', 'group'] })).name).toBe(
      'raw',
    );
    // The signature scheme's cuts hold it alone with the mix columns (and country, every site together).
    expect(chooseReadTable(needs({ dimensions: ['country', 'signatureScheme'], perSite: true })).name).toBe('raw');
    expect(chooseReadTable(needs({ dimensions: ['signatureScheme'], filters: ['certKey', 'group'] })).name).toBe('raw');
    // Not whole hours; two crypto columns by the hour (their hourly cuts hold one at a time).
    expect(chooseReadTable(needs({ from: month.from + 60_000 })).name).toBe('raw');
    expect(chooseReadTable(needs({ dimensions: ['certKey'], filters: ['group'], bucket: 'hour' })).name).toBe('raw');
    expect(chooseReadTable(needs({ dimensions: ['country'], filters: ['pq'], bucket: 'hour' })).name).toBe('raw');
    expect(chooseReadTable(needs({ bucket: 'hour', dimensions: ['country'], filters: ['browser'] })).name).toBe('raw');
    expect(chooseReadTable(needs({ table: 'raw', dimensions: ['country'] })).name).toBe('raw');
  });

  it('reads the hourly grain for hourly series and ranges of whole hours that no hourly daily cut answers', () => {
    const last24h = { from: month.to - 19 * HOUR, to: month.to + 5 * HOUR };
    // A daily cut with an hour column first, on its hour column.
    const byHour = chooseReadTable(needs({ ...last24h }));
    expect(byHour.name).toBe('rollup-all-sites-by-hour');
    expect(rangeColumn(byHour, last24h.from, last24h.to)).toBe('hour');
    expect(rangeColumn(byHour, month.from, month.to)).toBe('day');
    expect(chooseReadTable(needs({ ...last24h, dimensions: ['stack'] })).name).toBe(
      'rollup-all-sites-by-hour-protocol-tlsVersion',
    );
    // Else the hourly grain (migration 0013), on its hour column.
    const mode = chooseReadTable(needs({ ...last24h, dimensions: ['stack', 'mode'] }));
    expect(mode).toMatchObject({
      name: 'rollup-all-sites-hourly-by-protocol-tlsVersion-resumed-handshakeClass',
      table: 'handshakes_per_hour',
      where: `cut = ${hourlyCutNumber(['protocol', 'tlsVersion', 'resumed', 'handshakeClass'])}`,
    });
    expect(rangeColumn(mode, last24h.from, last24h.to)).toBe('hour');
    expect(chooseReadTable(needs({ bucket: 'hour', dimensions: ['mode'] })).name).toBe(
      'rollup-all-sites-hourly-by-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(chooseReadTable(needs({ ...last24h, dimensions: ['country'], site: 'a.example.com' })).name).toBe(
      'rollup-site-hourly-by-country-protocol-tlsVersion-resumed-handshakeClass',
    );
    // A browser or a source alone: its own cut (migration 0027), not the three together.
    expect(chooseReadTable(needs({ bucket: 'hour', filters: ['browser'] })).name).toBe(
      'rollup-all-sites-hourly-by-browser-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(chooseReadTable(needs({ bucket: 'hour', dimensions: ['stack'], filters: ['source'] })).name).toBe(
      'rollup-all-sites-hourly-by-source-protocol-tlsVersion-resumed-handshakeClass',
    );
    // Of one site: the three together (0027's cuts are of every site only).
    expect(chooseReadTable(needs({ bucket: 'hour', filters: ['browser'], site: 'a.example.com' })).name).toBe(
      'rollup-site-hourly-by-browser-source-cryptoSource-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(chooseReadTable(needs({ bucket: 'hour', filters: ['browser', 'source'] })).name).toBe(
      'rollup-all-sites-hourly-by-browser-source-cryptoSource-protocol-tlsVersion-resumed-handshakeClass',
    );
    // Dimensions only the hourly grain holds among the cuts with an hour column, for any range of whole hours.
    expect(chooseReadTable(needs({ ...last24h, dimensions: ['versionEvidence'] })).name).toBe(
      'rollup-all-sites-hourly-by-versionEvidence-protocol-tlsVersion-resumed-handshakeClass',
    );
    expect(
      chooseReadTable(needs({ ...last24h, dimensions: ['browser', 'cryptoSource'], site: 'a.example.com' })).name,
    ).toBe('rollup-site-hourly-by-browser-source-cryptoSource-protocol-tlsVersion-resumed-handshakeClass');
    // Over whole days the browser with the crypto facts' source has a daily cut (0032).
    expect(chooseReadTable(needs({ dimensions: ['browser', 'cryptoSource'], site: 'a.example.com' })).name).toBe(
      'rollup-site-by-browser-cryptoSource-protocol-tlsVersion-resumed-handshakeClass',
    );
    // Shapes of hours no cut holds: the raw table.
    expect(chooseReadTable(needs({ ...last24h, dimensions: ['country'], filters: ['browser'] })).name).toBe('raw');
  });

  it('reads the raw table when suppression needs more distinct clients than the rollup counts', () => {
    expect(chooseReadTable(needs({ dimensions: ['country'], minClients: ROLLUP_CLIENTS_CAP })).name).toBe(
      'rollup-all-sites-by-country',
    );
    expect(chooseReadTable(needs({ dimensions: ['country'], minClients: ROLLUP_CLIENTS_CAP + 1 })).name).toBe('raw');
  });
});

describe('chooseTable', () => {
  it('reads the rollup, widened to whole days from a week on and to whole hours below', () => {
    const t = Date.UTC(2026, 10, 23, 10, 17, 5);
    expect(chooseTable({ from: t - 7 * DAY, to: t })).toEqual({
      table: 'rollup',
      from: Date.UTC(2026, 10, 16),
      to: Date.UTC(2026, 10, 24),
    });
    expect(chooseTable({ from: t - 3 * DAY, to: t })).toEqual({
      table: 'rollup',
      from: Date.UTC(2026, 10, 20, 10),
      to: Date.UTC(2026, 10, 23, 11),
    });
    expect(chooseTable({ from: t - 3 * DAY, to: t }, 'raw')).toEqual({ table: 'raw', from: t - 3 * DAY, to: t });
    expect(chooseTable({ from: t - 8 * DAY, to: t }, 'rollup')).toEqual({
      table: 'rollup',
      from: Date.UTC(2026, 10, 15),
      to: Date.UTC(2026, 10, 24),
    });
  });
});

describe('the k-sites count of cells without a token', () => {
  const cells = (minSites: number, dimensions: CellQuery['dimensions']) =>
    buildCellSql(
      {
        table: 'rollup',
        filters: { ...month, site: null, clientCap: 5, minSites },
        dimensions,
        metrics: 'handshake',
        limit: 10,
      },
      20,
    );

  it('comes from the sites counted in the rows of every site together, up to what they count; a threshold above it joins the cut of one site each', () => {
    for (const dimensions of [['stack', 'mode'], ['country', 'browser'], ['country']] as const) {
      const counted = cells(2, dimensions);
      expect(counted.readTable).toMatchObject({ sites: 'all', siteCounts: true });
      expect(counted.sql).toContain(`uniqUpToMerge(${ROLLUP_SITES_CAP - 1})(sites) AS n_sites`);
      expect(counted.sql).not.toContain('JOIN');
      const joined = cells(ROLLUP_SITES_CAP + 1, dimensions);
      expect(joined.readTable).toMatchObject({ sites: 'all' });
      expect(joined.sql).toContain("uniqExactIf(site, site != '') AS n_sites");
      expect(joined.sql).toContain('LEFT JOIN');
    }
  });

  it('a cut read one site each (the crypto cuts) counts its site column', () => {
    const crypto = cells(2, ['certKey']);
    expect(crypto.readTable).toMatchObject({ sites: 'one', few: true });
    expect(crypto.sql).toContain("uniqExactIf(site, site != '') AS n_sites");
    expect(crypto.sql).not.toContain('JOIN');
  });
});
