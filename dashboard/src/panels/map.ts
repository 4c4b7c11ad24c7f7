/**
 * Region: a world choropleth of the p75 handshake (or set-up) time per country, with the protocol,
 * TLS version and resumption mix on hover, and the same numbers as a table beside it.
 */
import type { Answer, Cell } from '../api';
import { charting, createPanel, type DashboardPanel } from '../panel';
import { clientsText, FEW_CLIENTS_NOTE, int, mixShare, MIX_NOT_SHOWN_NOTE, ms, quantileColumns } from '../format';
import { countryName } from '../countries';
import { fillTable, suppressedRow } from '../table';
import { importAgainOnFailure } from '../lazy';

/** The protocols the map can show one at a time ('' = every protocol together, with the mix on hover). */
const PROTOCOLS = [
  ['', 'All protocols'],
  ['TLS 1.2', 'TLS 1.2'],
  ['TLS 1.3', 'TLS 1.3'],
  ['h3', 'HTTP/3'],
] as const;

export function mapPanel(parent: HTMLElement): DashboardPanel<{ all: Answer; byStack: Answer }> {
  const panel = createPanel(parent, {
    id: 'map',
    title: 'Where handshakes cost most',
    description:
      'How long 3 in 4 connections take at most (p75), per country (from the client address, which is not kept), for every protocol together or one at a time. Hover a country for its protocol and resumption mix.',
    charts: [{ label: 'World map: p75 time per country', className: 'map' }],
    table: { className: 'map-table' },
    wide: true,
  });
  // Fetched while the first queries run; the other panels draw without waiting for it. A failed fetch is
  // asked again by the panel's retry (lazy.ts).
  const loadWorld = importAgainOnFailure(() => import('../world'));
  void loadWorld();
  // The protocol switch sits above the map; switching redraws from the answers already read.
  const picker = document.createElement('fieldset');
  picker.className = 'protocols';
  picker.append(Object.assign(document.createElement('legend'), { textContent: 'Protocol' }));
  for (const [value, text] of PROTOCOLS) {
    const label = document.createElement('label');
    const input = Object.assign(document.createElement('input'), {
      type: 'radio',
      name: 'map-protocol',
      value,
      checked: value === '',
    });
    label.append(input, ` ${text}`);
    picker.append(label);
  }
  panel.section.querySelector('.body')!.before(picker);
  let redraw: ((stack: string) => Promise<void>) | null = null;
  picker.addEventListener('change', (e) => void redraw?.((e.target as HTMLInputElement).value));
  return {
    panel,
    load: async (ctx) => {
      const [all, byStack] = await Promise.all([
        ctx.query('map', {}),
        ctx.query('compare', { dimensions: 'country,stack' }),
      ]);
      return { all, byStack };
    },
    async render({ all, byStack }, ctx) {
      ctx.onCountries(all);
      const metric = ctx.filters.metric as 'tls' | 'connect';
      const [{ MAP_NAME, WORLD }, { echarts }] = await Promise.all([loadWorld(), charting()]);
      if (!echarts.getMap(MAP_NAME)) echarts.registerMap(MAP_NAME, WORLD as never);
      const drawFor = async (stack: string): Promise<boolean> => {
        const answer = stack ? byStack : all;
        const cells = answer.cells.filter((c) => c.key.country !== 'ZZ' && (!stack || c.key.stack === stack));
        const shown = cells.filter((c): c is Cell & { records: number } => !c.suppressed);
        panel.section.dataset.protocol = stack;
        if (shown.length === 0) {
          panel.charts[0]!.clear();
          panel.table.replaceChildren();
          return false;
        }
        const byCountry = new Map(shown.map((c) => [c.key.country!, c]));
        const values = shown.map((c) => c[metric]!.p75);
        const protocol = PROTOCOLS.find(([v]) => v === stack)![1];
        panel.draw(0, {
          tooltip: {
            trigger: 'item',
            formatter: (p: { name: string }) => {
              const c = byCountry.get(p.name);
              const name = countryName(p.name);
              if (!c) return `${name}: no data, or too few people to show`;
              const lines = [
                `<b>${name}</b>${stack ? ` · ${protocol}` : ''}`,
                `p75 ${metric}: ${ms(c[metric]!.p75)} (p50 ${ms(c[metric]!.p50)})`,
                `${int(c.records)} records, ${clientsText(c)} clients`,
              ];
              const m = c.mix;
              if (m && !stack) {
                const mixLines: [string, number | undefined][][] = [
                  [
                    ['h3', m.protocol.h3],
                    ['h2', m.protocol.h2],
                    ['HTTP/1.1', m.protocol['http/1.1']],
                  ],
                  [
                    ['TLS 1.3', m.tlsVersion['1.3']],
                    ['TLS 1.2', m.tlsVersion['1.2']],
                  ],
                  [
                    ['resumed', m.mode.resumed],
                    ['0-RTT', m.mode['0-RTT']],
                  ],
                ];
                for (const line of mixLines) lines.push(line.map(([k, v]) => `${k} ${mixShare(v)}`).join(' · '));
                if (mixLines.flat().some(([, v]) => v === undefined)) lines.push(`<i>${MIX_NOT_SHOWN_NOTE}</i>`);
              }
              return lines.join('<br>');
            },
          },
          visualMap: {
            type: 'continuous',
            min: Math.floor(Math.min(...values)),
            max: Math.ceil(Math.max(...values)),
            // The unit on the legend: milliseconds at the 75th percentile.
            text: [`slow: p75 ${metric === 'tls' ? 'TLS handshake' : 'set-up'}, ms`, 'fast'],
            formatter: (v: number) => `${Math.round(v)} ms`,
            calculable: true,
            inRange: { color: ['#1a9850', '#fee08b', '#d73027'] },
            left: 10,
            bottom: 10,
          },
          series: [
            {
              name: `p75 ${metric}`,
              type: 'map',
              map: MAP_NAME,
              roam: true,
              emphasis: { label: { show: false } },
              data: shown.map((c) => ({ name: c.key.country, value: c[metric]!.p75 })),
            },
          ],
        });
        const head = stack
          ? ['country', 'records', `p75 ${metric}`]
          : ['country', 'records', `p75 ${metric}`, 'h3', 'TLS 1.3', 'resumed'];
        fillTable(
          panel.table,
          stack ? `${protocol} per country, by records` : 'Per country, by records',
          head,
          [...cells]
            .sort((a, b) => (b.records ?? -1) - (a.records ?? -1))
            .map((c) =>
              c.suppressed
                ? suppressedRow(countryName(c.key.country!), head.length)
                : {
                    cells: [
                      countryName(c.key.country!),
                      `${int(c.records)}${c.fewClients ? ' (few)' : ''}`,
                      ms(c[metric]!.p75),
                      ...(stack ? [] : tableShares(c).map(mixShare)),
                    ],
                    ...rowTitle(c, !stack),
                  },
            ),
        );
        panel.setRows(
          answer.cells
            .filter((c) => !stack || c.key.stack === stack)
            .map((c) => ({
              country: c.key.country,
              protocol: stack || 'all',
              suppressed: c.suppressed ?? false,
              records: c.records,
              clients: c.clients,
              clients_capped: c.clientsCapped ?? false,
              few_clients: c.fewClients ?? false,
              ...quantileColumns(metric, c[metric]),
              h3_share: c.mix?.protocol.h3,
              h2_share: c.mix?.protocol.h2,
              http11_share: c.mix?.protocol['http/1.1'],
              tls13_share: c.mix?.tlsVersion['1.3'],
              resumed_share: c.mix?.mode.resumed,
              zero_rtt_share: c.mix?.mode['0-RTT'],
            })),
        );
        return true;
      };
      redraw = async (stack) => {
        const drawn = await drawFor(stack);
        panel.setState(drawn ? 'ready' : 'empty', drawn ? '' : 'No country has enough people for this protocol.');
      };
      const current = picker.querySelector<HTMLInputElement>('input:checked')?.value ?? '';
      return drawFor(current);
    },
  };
}

/** The table's mix columns of a country: h3, TLS 1.3 and resumed. */
const tableShares = (c: Cell) => [c.mix!.protocol.h3, c.mix!.tlsVersion['1.3'], c.mix!.mode.resumed];

/** A country row's hover text: few clients, and (with the mix columns) why a share is not shown. */
function rowTitle(c: Cell, withMix: boolean): { title?: string } {
  const notes = [
    ...(c.fewClients ? [FEW_CLIENTS_NOTE] : []),
    ...(withMix && tableShares(c).includes(undefined) ? [MIX_NOT_SHOWN_NOTE] : []),
  ];
  return notes.length ? { title: notes.join('; ') } : {};
}
