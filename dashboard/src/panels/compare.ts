/**
 * Comparison: p50 / p75 / p95 of the TLS phase and of the whole connection set-up for TLS 1.2, TLS 1.3
 * and h3 × full, resumed and 0-RTT, with the record counts and how the resumption state is known
 * (observed or reported by the server, vs inferred from timings) beside them.
 */
import { api, type Answer, type Cell } from '../api';
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

const HEAD = ['group', 'records', 'clients', 'tls p75', 'connect p75', 'resumption observed', 'inferred'];

export function comparePanel(parent: HTMLElement): DashboardPanel<Answer> {
  const panel = createPanel(parent, {
    id: 'compare',
    title: 'TLS 1.2 vs TLS 1.3 vs HTTP/3, full vs resumed vs 0-RTT',
    description:
      'Percentiles of the TLS handshake and of the whole connection set-up (TCP + TLS; QUIC for h3). Groups with too few distinct clients are suppressed; "(few)" marks groups that rest on few people.',
    charts: [
      { label: 'Bar chart: TLS handshake time percentiles per protocol and handshake mode' },
      { label: 'Bar chart: connection set-up time percentiles per protocol and handshake mode' },
    ],
    table: { below: true },
    wide: true,
  });
  return {
    panel,
    drawsRecords: true,
    load: ({ params, token, signal }) => api.query('compare', { ...params, dimensions: 'stack,mode' }, token, signal),
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
          series: (['p50', 'p75', 'p95'] as const).map((p) => ({
            name: p,
            type: 'bar',
            data: shown.map((c) => c[metric]![p]),
          })),
        });
      });
      const describe = (c: Cell) =>
        `${label(c)}: ${int(c.records)} records, ${clientsText(c)} clients; resumption known ${pct(c.evidence?.evidenced)}, inferred ${pct(c.evidence?.inferred)}${c.fewClients ? ` — ${FEW_CLIENTS_NOTE}` : ''}`;
      fillTable(
        panel.table,
        'Records, clients and how the handshake is known',
        HEAD,
        all.map((c) =>
          c.suppressed
            ? { cells: suppressedRow(label(c), HEAD.length), title: 'suppressed' }
            : {
                cells: [
                  label(c),
                  int(c.records),
                  clientsText(c),
                  ms(c.tls?.p75),
                  ms(c.connect?.p75),
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
