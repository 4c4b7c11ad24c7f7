/**
 * Comparison: p50 / p75 / p95 of the TLS phase and of the whole connection set-up for TLS 1.2, TLS 1.3
 * and h3 × full, resumed and 0-RTT, with the record counts and how the resumption state is known
 * (observed or reported by the server, vs inferred from timings) beside them.
 */
import type { Answer, Cell } from '../api';
import { createPanel, type Panel } from '../panel';
import { int, label, ms, PALETTE, pct, sortByStackMode } from '../format';

export function comparePanel(parent: HTMLElement) {
  const table = document.createElement('div');
  table.className = 'table-wrap';
  const panel = createPanel(parent, {
    id: 'compare',
    title: 'TLS 1.2 vs TLS 1.3 vs HTTP/3, full vs resumed vs 0-RTT',
    description:
      'Percentiles of the TLS handshake and of the whole connection set-up (TCP + TLS; QUIC for h3). Groups with too few distinct clients are suppressed.',
    charts: [
      { label: 'Bar chart: TLS handshake time percentiles per protocol and handshake mode' },
      { label: 'Bar chart: connection set-up time percentiles per protocol and handshake mode' },
    ],
    aside: table,
    asideBelow: true,
    wide: true,
  });
  return {
    panel,
    render(answer: Answer) {
      const all = sortByStackMode(answer.cells);
      const shown = all.filter((c) => !c.suppressed && c.key.stack !== 'unknown' && c.key.mode !== 'unknown');
      if (shown.length === 0) return false;
      const cats = shown.map(label);
      const byCell = (c: Cell) => `${label(c)}: ${int(c.records)} records, ${int(c.clients)} clients; resumption known ${pct(c.evidence?.evidenced)}, inferred ${pct(c.evidence?.inferred)}`;
      (['tls', 'connect'] as const).forEach((metric, i) => {
        panel.charts[i]!.setOption(
          {
            aria: { enabled: true },
            color: PALETTE,
            title: undefined,
            tooltip: {
              trigger: 'axis',
              valueFormatter: (v: number) => ms(v),
            },
            legend: { top: 0 },
            grid: { left: 50, right: 10, top: 50, bottom: 80 },
            xAxis: { type: 'category', data: cats, axisLabel: { rotate: 35, interval: 0 } },
            yAxis: { type: 'value', name: metric === 'tls' ? 'TLS handshake, ms' : 'TCP + TLS set-up, ms', nameGap: 12 },
            series: (['p50', 'p75', 'p95'] as const).map((p) => ({
              name: p,
              type: 'bar',
              data: shown.map((c) => c[metric]![p]),
            })),
          },
          true,
        );
      });
      table.innerHTML = `<table><caption>Records, clients and how the handshake is known</caption>
        <thead><tr><th scope="col">group</th><th scope="col">records</th><th scope="col">clients</th><th scope="col">tls p75</th><th scope="col">connect p75</th><th scope="col">resumption observed</th><th scope="col">inferred</th></tr></thead>
        <tbody></tbody></table>`;
      const tbody = table.querySelector('tbody')!;
      for (const c of all) {
        const tr = document.createElement('tr');
        tr.title = c.suppressed ? 'suppressed' : byCell(c);
        const cells = c.suppressed
          ? [label(c), 'suppressed', '', '', '', '', '']
          : [label(c), int(c.records), int(c.clients), ms(c.tls?.p75), ms(c.connect?.p75), pct(c.evidence?.evidenced), pct(c.evidence?.inferred)];
        cells.forEach((v, j) => {
          const td = document.createElement(j === 0 ? 'th' : 'td');
          if (j === 0) td.setAttribute('scope', 'row');
          td.textContent = v;
          tr.append(td);
        });
        tbody.append(tr);
      }
      panel.setRows(
        all.map((c) => ({
          stack: c.key.stack,
          mode: c.key.mode,
          suppressed: c.suppressed ?? false,
          records: c.records,
          clients: c.clients,
          tls_p50: c.tls?.p50,
          tls_p75: c.tls?.p75,
          tls_p95: c.tls?.p95,
          connect_p50: c.connect?.p50,
          connect_p75: c.connect?.p75,
          connect_p95: c.connect?.p95,
          resumption_evidenced_share: c.evidence?.evidenced,
          resumption_inferred_share: c.evidence?.inferred,
        })),
      );
      return true;
    },
  } satisfies { panel: Panel; render(a: Answer): boolean };
}
