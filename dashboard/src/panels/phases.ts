/** Phase breakdown: median DNS, TCP, TLS and time to first byte per protocol stack and mode. */
import { api, type Answer } from '../api';
import { axisChart, createPanel, type DashboardPanel } from '../panel';
import { drawnStackModes, label, ms, quantileColumns, sortByStackMode } from '../format';

const PHASES = [
  ['dns', 'DNS', '#bab0ac'],
  ['tcp', 'TCP', '#4e79a7'],
  ['tls', 'TLS', '#e15759'],
  ['ttfb', 'time to first byte', '#76b7b2'],
] as const;

export function phasesPanel(parent: HTMLElement): DashboardPanel<Answer> {
  const panel = createPanel(parent, {
    id: 'phases',
    title: 'Where the time goes',
    description:
      'Median of each phase of a new connection, stacked (medians do not add up exactly to the median total).',
    charts: [{ label: 'Stacked bar chart: median DNS, TCP, TLS and time to first byte per group', className: 'tall' }],
  });
  return {
    panel,
    load: ({ params, token, signal }) => api.query('phases', { ...params, dimensions: 'stack,mode' }, token, signal),
    render(answer) {
      const cells = drawnStackModes(answer.cells);
      if (cells.length === 0) return false;
      panel.draw(0, {
        ...axisChart(ms, { shadow: true }),
        grid: { left: 110, right: 16, top: 40, bottom: 30 },
        xAxis: { type: 'value', name: 'ms' },
        yAxis: { type: 'category', data: cells.map(label), inverse: true },
        series: PHASES.map(([k, name, color]) => ({
          name,
          type: 'bar',
          stack: 'total',
          color,
          data: cells.map((c) => c[k]!.p50),
        })),
      });
      panel.setRows(
        sortByStackMode(answer.cells).map((c) => ({
          stack: c.key.stack,
          mode: c.key.mode,
          suppressed: c.suppressed ?? false,
          records: c.records,
          ...Object.assign(
            {},
            ...(['dns', 'tcp', 'tls', 'connect', 'ttfb'] as const).map((k) => quantileColumns(k, c[k])),
          ),
        })),
      );
      return true;
    },
  };
}
