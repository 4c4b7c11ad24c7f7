/** Trends: p75 per protocol stack over time (hourly for a day, daily beyond). */
import { api, type Answer } from '../api';
import { axisChart, createPanel, timeAxis, type DashboardPanel } from '../panel';
import { ms, PALETTE, quantileColumns, STACKS } from '../format';

export function trendsPanel(parent: HTMLElement): DashboardPanel<Answer> {
  const panel = createPanel(parent, {
    id: 'trends',
    title: 'Trends',
    description: 'p75 per protocol stack over time. Gaps are buckets with no data or too few clients.',
    charts: [{ label: 'Line chart: p75 over time per protocol stack' }],
  });
  return {
    panel,
    load: ({ params, token, signal }) => api.query('timeseries', { ...params, dimensions: 'stack' }, token, signal),
    render(answer, ctx) {
      const metric = ctx.filters.metric as 'tls' | 'connect';
      const cells = answer.cells.filter((c) => !c.suppressed && STACKS.includes(c.key.stack ?? ''));
      if (cells.length === 0) return false;
      const series = STACKS.map((stack) => ({
        name: stack,
        type: 'line',
        showSymbol: false,
        connectNulls: false,
        data: cells.filter((c) => c.key.stack === stack).map((c) => [c.t!, c[metric]!.p75]),
      })).filter((s) => s.data.length > 0);
      panel.draw(0, {
        ...axisChart(ms),
        color: PALETTE,
        grid: { left: 50, right: 16, top: 40, bottom: 40 },
        xAxis: timeAxis(ctx.filters.range),
        yAxis: { type: 'value', name: `p75 ${metric}, ms`, nameGap: 12 },
        series,
      });
      panel.setRows(
        answer.cells.map((c) => ({
          time: new Date(c.t!).toISOString(),
          stack: c.key.stack,
          suppressed: c.suppressed ?? false,
          records: c.records,
          ...quantileColumns(metric, c[metric]),
        })),
      );
      return true;
    },
  };
}
