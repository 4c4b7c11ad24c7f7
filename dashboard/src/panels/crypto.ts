/**
 * Cryptography: TLS-phase p50 / p75 by key-exchange group, certificate key, chain length and cipher; the
 * post-quantum share over time; and where these facts come from (coverage), since no browser tells
 * everything: Firefox observes them, Chromium records of a registered site borrow its latest probe's.
 * Each chart has one plain line for a non-expert and the precise definition one click away.
 */
import { DIMENSIONS } from '@tlsrum/shared/query';
import { api, type Answer, type Cell } from '../api';
import { axisChart, createPanel, type DashboardPanel, timeAxis } from '../panel';
import { clientsText, int, ms, PALETTE, pct } from '../format';
import { fillTable, suppressedRow } from '../table';

/** The four splits of the TLS phase, each a compare query by one dimension. */
export const CRYPTO_SPLITS = ['group', 'certKey', 'chainLength', 'cipher'] as const;
type Split = (typeof CRYPTO_SPLITS)[number];

const PLAIN: Record<Split | 'pq' | 'coverage', { title: string; line: string; detail: string }> = {
  group: {
    title: 'By key-exchange group',
    line: 'How the browser and server agreed on a secret key. "MLKEM" groups also resist future quantum computers, at the cost of a bigger first message.',
    detail: `${DIMENSIONS.group.description} X25519MLKEM768 adds a 1,184-byte ML-KEM key share to X25519's 32 bytes, which can split the ClientHello over two packets.`,
  },
  certKey: {
    title: 'By certificate key',
    line: "The kind of key in the site's certificate. Bigger RSA keys make the server work harder; ECDSA keys are small and fast.",
    detail: DIMENSIONS.certKey.description,
  },
  chainLength: {
    title: 'By certificate chain length',
    line: 'How many certificates the server sends. Each one adds bytes to the handshake.',
    detail: DIMENSIONS.chainLength.description,
  },
  cipher: {
    title: 'By cipher suite',
    line: 'How the data itself is encrypted once the handshake is done. It matters little for handshake time.',
    detail: DIMENSIONS.cipher.description,
  },
  pq: {
    title: 'Post-quantum share over time',
    line: 'Share of new connections protected against "record now, decrypt later" attacks by a quantum computer.',
    detail: `${DIMENSIONS.pq.description} The share is hybrid ÷ (hybrid + classical): connections with no known group are left out.`,
  },
  coverage: {
    title: 'Where these facts come from',
    line: 'Browsers do not all report these details: this shows, per browser, how many connections the charts above can describe.',
    detail: DIMENSIONS.cryptoSource.description,
  },
};

/** Values drawn: known ones, largest first, at most this many per chart. */
const MAX_BARS = 8;

export interface CryptoAnswers {
  splits: Record<Split, Answer>;
  /** Daily (or hourly) cells by pq. */
  pq: Answer;
  /** Cells by browser × cryptoSource. */
  coverage: Answer;
}

const shown = (a: Answer, d: string) =>
  a.cells
    .filter((c) => !c.suppressed && c.key[d] !== 'unknown')
    .sort((x, y) => (y.records ?? 0) - (x.records ?? 0))
    .slice(0, MAX_BARS);

export function cryptoPanel(parent: HTMLElement): DashboardPanel<CryptoAnswers> {
  const parts = [...CRYPTO_SPLITS, 'pq', 'coverage'] as const;
  const panel = createPanel(parent, {
    id: 'crypto',
    title: 'Cryptography',
    description:
      'Does the cryptography a site chose change how long the secure handshake takes? TLS handshake time (median and 75th percentile) per choice, the post-quantum share, and which browsers these facts come from. Groups with too few distinct clients are suppressed.',
    charts: parts.map((p) => ({ label: `${PLAIN[p].title}: ${PLAIN[p].line}`, className: 'crypto-chart' })),
    table: { below: true },
    wide: true,
  });
  // One plain line above each chart, the precise definition one click away.
  panel.boxes.forEach((box, i) => {
    const p = PLAIN[parts[i]!];
    const caption = document.createElement('div');
    caption.className = 'chart-caption';
    const h = document.createElement('h3');
    h.textContent = p.title;
    const line = document.createElement('p');
    line.textContent = p.line;
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = 'Precisely';
    const more = document.createElement('p');
    more.textContent = p.detail;
    details.append(summary, more);
    caption.append(h, line, details);
    const figure = document.createElement('figure');
    figure.className = 'crypto-figure';
    box.before(figure);
    figure.append(caption, box);
  });

  return {
    panel,
    load: async ({ params, token, signal }) => {
      const [splits, pq, coverage] = await Promise.all([
        Promise.all(CRYPTO_SPLITS.map((d) => api.query('compare', { ...params, dimensions: d }, token, signal))),
        api.query('timeseries', { ...params, dimensions: 'pq' }, token, signal),
        api.query('compare', { ...params, dimensions: 'browser,cryptoSource' }, token, signal),
      ]);
      return {
        splits: Object.fromEntries(CRYPTO_SPLITS.map((d, i) => [d, splits[i]!])) as CryptoAnswers['splits'],
        pq,
        coverage,
      };
    },
    render(a, ctx) {
      const anyKnown = CRYPTO_SPLITS.some((d) => shown(a.splits[d], d).length > 0);
      if (!anyKnown) return false;
      CRYPTO_SPLITS.forEach((d, i) => {
        const cells = shown(a.splits[d], d);
        panel.draw(i, {
          ...axisChart(ms, { shadow: true }),
          color: PALETTE,
          grid: { left: 50, right: 10, top: 52, bottom: 70 },
          // Cipher suite names are long: the axis shows them without the common TLS_ and _WITH_ parts.
          xAxis: {
            type: 'category',
            data: cells.map((c) => c.key[d]),
            axisLabel: {
              rotate: 25,
              interval: 0,
              fontSize: 10,
              formatter: (v: string) => v.replace(/^TLS_/, '').replace('_WITH_', ' '),
            },
          },
          yAxis: { type: 'value', name: 'TLS handshake, ms', nameGap: 10 },
          series: (['p50', 'p75'] as const).map((p) => ({
            name: p === 'p50' ? 'median (p50)' : 'p75',
            type: 'bar',
            data: cells.map((c) => c.tls?.[p]),
          })),
        });
      });

      // Post-quantum share per time bucket: hybrid / (hybrid + classical) of the shown cells.
      const byT = new Map<number, { hybrid: number; classical: number }>();
      for (const c of a.pq.cells) {
        if (c.suppressed || c.t === undefined || (c.key.pq !== 'hybrid' && c.key.pq !== 'classical')) continue;
        const e = byT.get(c.t) ?? { hybrid: 0, classical: 0 };
        e[c.key.pq] += c.records ?? 0;
        byT.set(c.t, e);
      }
      const pqPoints = [...byT]
        .sort(([x], [y]) => x - y)
        .map(([t, e]) => [t, e.hybrid / (e.hybrid + e.classical)] as const);
      panel.draw(CRYPTO_SPLITS.length, {
        ...axisChart(pct),
        grid: { left: 44, right: 12, top: 36, bottom: 36 },
        xAxis: timeAxis(ctx.filters.range),
        yAxis: { type: 'value', min: 0, max: 1, axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
        series: [
          {
            name: 'post-quantum hybrid',
            type: 'line',
            areaStyle: {},
            showSymbol: false,
            color: '#59a14f',
            data: pqPoints,
          },
        ],
      });

      // Coverage: per browser, the share of records whose facts were observed, came from a probe, or none.
      const browsers = new Map<string, Record<string, number>>();
      for (const c of a.coverage.cells) {
        if (c.suppressed) continue;
        const b = browsers.get(c.key.browser!) ?? {};
        b[c.key.cryptoSource!] = (b[c.key.cryptoSource!] ?? 0) + (c.records ?? 0);
        browsers.set(c.key.browser!, b);
      }
      const names = [...browsers.keys()].sort();
      const total = (b: Record<string, number>) => Object.values(b).reduce((x, y) => x + y, 0);
      const SOURCES = [
        ['observed', 'observed by the browser', '#4e79a7'],
        ['probe', "from the site's probe", '#f28e2b'],
        ['none', 'not known', '#bab0ac'],
      ] as const;
      panel.draw(CRYPTO_SPLITS.length + 1, {
        ...axisChart(pct, { shadow: true }),
        grid: { left: 70, right: 12, top: 36, bottom: 30 },
        xAxis: { type: 'value', max: 1, axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
        yAxis: { type: 'category', data: names },
        series: SOURCES.map(([k, name, color]) => ({
          name,
          type: 'bar',
          stack: 'source',
          color,
          data: names.map((n) => (browsers.get(n)![k] ?? 0) / total(browsers.get(n)!)),
        })),
      });

      const head = ['choice', 'records', 'clients', 'tls p50', 'tls p75'];
      const rowsOf = (d: Split) =>
        a.splits[d].cells.map((c: Cell) => {
          const name = `${DIMENSIONS[d].label}: ${c.key[d]}`;
          return c.suppressed
            ? { cells: suppressedRow(name, head.length), title: 'suppressed' }
            : {
                cells: [name, int(c.records), clientsText(c), ms(c.tls?.p50), ms(c.tls?.p75)],
                title: `${name}: ${int(c.records)} records, TLS p50 ${ms(c.tls?.p50)}, p75 ${ms(c.tls?.p75)}`,
              };
        });
      fillTable(panel.table, 'TLS handshake time per cryptographic choice', head, CRYPTO_SPLITS.flatMap(rowsOf));

      panel.setRows([
        ...CRYPTO_SPLITS.flatMap((d) =>
          a.splits[d].cells.map((c) => ({
            part: d,
            value: c.key[d],
            time: null,
            suppressed: c.suppressed ?? false,
            records: c.records,
            clients: c.clients,
            tls_p50_ms: c.tls?.p50,
            tls_p75_ms: c.tls?.p75,
            share: null,
          })),
        ),
        ...pqPoints.map(([t, share]) => ({
          part: 'pq_share',
          value: 'hybrid',
          time: new Date(t).toISOString(),
          share: Math.round(share * 10_000) / 10_000,
        })),
        ...names.flatMap((n) =>
          SOURCES.map(([k]) => ({
            part: 'coverage',
            value: `${n}/${k}`,
            records: browsers.get(n)![k] ?? 0,
            share: Math.round(((browsers.get(n)![k] ?? 0) / total(browsers.get(n)!)) * 10_000) / 10_000,
          })),
        ),
      ]);
      return true;
    },
  };
}
