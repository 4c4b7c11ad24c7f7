/**
 * Comparison: p50 / p75 / p95 of the TLS phase and of the whole connection set-up for TLS 1.2, TLS 1.3
 * and h3 × full, resumed and 0-RTT, with the record counts and how the resumption state is known
 * (observed or reported by the server, vs inferred from timings) beside them.
 */
import type { Answer, Cell } from '../api';
import { axisChart, createPanel, type DashboardPanel } from '../panel';
import {
  clientsText,
  drawnStackModes,
  FEW_CLIENTS_NOTE,
  int,
  label,
  ms,
  PALETTE,
  pct,
  quantileColumns,
  sortByStackMode,
} from '../format';
import { fillTable, suppressedRow } from '../table';

const HEAD = [
  'group',
  'records',
  'people',
  'TLS p50',
  'TLS p75',
  'TLS p95',
  'set-up p50',
  'set-up p75',
  'set-up p95',
  'resumption observed',
  'inferred',
];

export function comparePanel(parent: HTMLElement): DashboardPanel<Answer> {
  const panel = createPanel(parent, {
    id: 'compare',
    title: 'TLS 1.2 vs TLS 1.3 vs HTTP/3, full vs resumed vs 0-RTT',
    description:
      'How long 3 in 4 connections take at most (the 75th percentile): the TLS handshake, and the whole connection set-up (TCP + TLS; QUIC for HTTP/3). Groups of too few people are hidden; "(few)" marks groups that rest on few people.',
    charts: [
      { label: 'Bar chart: p75 TLS handshake time per protocol and handshake mode' },
      { label: 'Bar chart: p75 connection set-up time per protocol and handshake mode' },
    ],
    table: { below: true },
    wide: true,
  });
  return {
    panel,
    load: (ctx) => ctx.query('compare', { dimensions: 'stack,mode' }),
    render(answer, ctx) {
      // A read token scopes every answer to its site, even when no site is chosen: say which data this is.
      ctx.onSite(answer.site);
      const all = sortByStackMode(answer.cells);
      const shown = drawnStackModes(all);
      if (shown.length === 0) return false;
      const cats = shown.map(label);
      (['tls', 'connect'] as const).forEach((metric, i) => {
        panel.draw(i, {
          ...axisChart(ms),
          color: PALETTE,
          grid: { left: 50, right: 10, top: 50, bottom: 80 },
          xAxis: { type: 'category', data: cats, axisLabel: { rotate: 35, interval: 0 } },
          yAxis: { type: 'value', name: metric === 'tls' ? 'TLS handshake, ms' : 'TCP + TLS set-up, ms', nameGap: 12 },
          // p75 only on the first screen (each bar labelled, so a 1 ms 0-RTT bar still reads); p50 and p95 are in the table.
          series: [
            {
              name: 'p75',
              type: 'bar',
              label: { show: true, position: 'top', fontSize: 10, formatter: (p: { value: number }) => ms(p.value) },
              data: shown.map((c) => c[metric]!.p75),
            },
          ],
        });
      });
      const describe = (c: Cell) =>
        `${label(c)}: ${int(c.records)} records, ${clientsText(c)} clients; resumption known ${pct(c.evidence?.evidenced)}, inferred ${pct(c.evidence?.inferred)}${c.fewClients ? ` — ${FEW_CLIENTS_NOTE}` : ''}`;
      const details = document.createElement('details');
      details.append(
        Object.assign(document.createElement('summary'), {
          textContent: 'All figures: p50, p75 and p95, people, how the handshake is known',
        }),
      );
      const inner = document.createElement('div');
      details.append(inner);
      panel.table.replaceChildren(details);
      fillTable(
        inner,
        'Records, distinct people and how the handshake is known',
        HEAD,
        all.map((c) =>
          c.suppressed
            ? { cells: suppressedRow(label(c), HEAD.length), title: 'suppressed' }
            : {
                cells: [
                  label(c),
                  int(c.records),
                  clientsText(c),
                  ms(c.tls?.p50),
                  ms(c.tls?.p75),
                  ms(c.tls?.p95),
                  ms(c.connect?.p50),
                  ms(c.connect?.p75),
                  ms(c.connect?.p95),
                  pct(c.evidence?.evidenced),
                  pct(c.evidence?.inferred),
                ],
                title: describe(c),
              },
        ),
      );
      panel.setRows(
        all.map((c) => ({
          stack: c.key.stack,
          mode: c.key.mode,
          suppressed: c.suppressed ?? false,
          records: c.records,
          clients: c.clients,
          clients_capped: c.clientsCapped ?? false,
          few_clients: c.fewClients ?? false,
          ...quantileColumns('tls', c.tls),
          ...quantileColumns('connect', c.connect),
          resumption_evidenced_share: c.evidence?.evidenced,
          resumption_inferred_share: c.evidence?.inferred,
        })),
      );
      return true;
    },
  };
}
