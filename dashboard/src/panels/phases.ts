/** Phase breakdown: median DNS, TCP, TLS and time to first byte per protocol stack and mode. */
import type { Answer } from '../api';
import { createPanel } from '../panel';
import { label, ms, sortByStackMode } from '../format';

const PHASES = [
  ['dns', 'DNS', '#bab0ac'],
  ['tcp', 'TCP', '#4e79a7'],
  ['tls', 'TLS', '#e15759'],
  ['ttfb', 'time to first byte', '#76b7b2'],
] as const;

export function phasesPanel(parent: HTMLElement) {
  const panel = createPanel(parent, {
    id: 'phases',
    title: 'Where the time goes',
    description: 'Median of each phase of a new connection, stacked (medians do not add up exactly to the median total).',
    charts: [{ label: 'Stacked bar chart: median DNS, TCP, TLS and time to first byte per group', className: 'tall' }],
  });
  return {
    panel,
    render(answer: Answer) {
      const cells = sortByStackMode(answer.cells).filter((c) => !c.suppressed && c.key.stack !== 'unknown' && c.key.mode !== 'unknown');
      if (cells.length === 0) return false;
      panel.charts[0]!.setOption(
        {
          aria: { enabled: true },
          tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (v: number) => ms(v) },
          legend: { top: 0 },
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
        },
        true,
      );
      panel.setRows(
        sortByStackMode(answer.cells).map((c) => ({
          stack: c.key.stack,
          mode: c.key.mode,
          suppressed: c.suppressed ?? false,
          records: c.records,
          ...Object.fromEntries(['dns', 'tcp', 'tls', 'connect', 'ttfb'].flatMap((k) => ['p50', 'p75', 'p95'].map((p) => [`${k}_${p}`, c[k as 'dns']?.[p as 'p50']]))),
        })),
      );
      return true;
    },
  };
}
