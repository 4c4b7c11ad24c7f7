/**
 * Protocol and resumption share over time (stacked, per bucket). A value whose share would reveal a group of
 * too few people is left out of the answer (the collector's joint cells); what the shown values leave of 100 %
 * is drawn as "not shown", so the stack still reaches 100 % and no left-out value looks like a missing share.
 */
import { api, type Answer } from '../api';
import { axisChart, createPanel, type DashboardPanel, timeAxis } from '../panel';
import { pct } from '../format';

const PROTOCOLS = [
  ['h3', 'HTTP/3', '#59a14f'],
  ['h2', 'HTTP/2', '#4e79a7'],
  ['http/1.1', 'HTTP/1.1', '#f28e2b'],
] as const;
const MODES = [
  ['0-RTT', '0-RTT', '#59a14f'],
  ['resumed', 'resumed', '#76b7b2'],
  ['full', 'full handshake', '#e15759'],
  ['unknown', 'unknown', '#bab0ac'],
] as const;

/** The band of what the shown values leave: the values left out for having too few people. */
const NOT_SHOWN = ['not shown', '#d9d9d9'] as const;

type Mix = Record<string, number>;
/** What a cell's shown values of one mix leave of the whole (0 when every value is shown). */
const notShown = (mix: Mix | undefined): number =>
  Math.max(0, Math.round((1 - Object.values(mix ?? {}).reduce((a, b) => a + b, 0)) * 1e4) / 1e4);

export function sharesPanel(parent: HTMLElement): DashboardPanel<Answer> {
  const panel = createPanel(parent, {
    id: 'shares',
    title: 'Protocol and resumption share',
    description:
      'Share of new connections by protocol, and by handshake mode (resumption state unknown where no evidence exists). Grey: connections whose protocol or mode is not shown, because it would single out a group of too few people.',
    charts: [
      { label: 'Stacked area chart: share of connections by protocol over time' },
      { label: 'Stacked area chart: share of connections by handshake mode over time' },
    ],
    wide: true,
  });
  return {
    panel,
    load: ({ params, token, signal }) => api.query('timeseries', params, token, signal),
    render(answer, ctx) {
      const cells = answer.cells.filter((c) => !c.suppressed);
      if (cells.length === 0) return false;
      const chart = (i: number, mix: 'protocol' | 'mode', keys: readonly (readonly [string, string, string])[]) =>
        panel.draw(i, {
          ...axisChart(pct),
          grid: { left: 44, right: 12, top: 40, bottom: 36 },
          xAxis: timeAxis(ctx.filters.range),
          yAxis: { type: 'value', max: 1, axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
          series: [
            ...keys.map(([k, name, color]) => ({
              name,
              type: 'line',
              stack: mix,
              areaStyle: {},
              showSymbol: false,
              color,
              data: cells.map((c) => [c.t!, c.mix![mix][k] ?? 0]),
            })),
            {
              name: NOT_SHOWN[0],
              type: 'line',
              stack: mix,
              areaStyle: { opacity: 0.6 },
              lineStyle: { width: 0 },
              showSymbol: false,
              color: NOT_SHOWN[1],
              data: cells.map((c) => [c.t!, notShown(c.mix![mix])]),
            },
          ],
        });
      chart(0, 'protocol', PROTOCOLS);
      chart(1, 'mode', MODES);
      panel.setRows(
        answer.cells.map((c) => ({
          time: new Date(c.t!).toISOString(),
          suppressed: c.suppressed ?? false,
          records: c.records,
          ...Object.fromEntries(PROTOCOLS.map(([k]) => [`protocol_${k}`, c.mix?.protocol[k]])),
          ...Object.fromEntries(MODES.map(([k]) => [`mode_${k}`, c.mix?.mode[k]])),
          protocol_not_shown: c.suppressed ? undefined : notShown(c.mix?.protocol),
          mode_not_shown: c.suppressed ? undefined : notShown(c.mix?.mode),
          tls13_share: c.mix?.tlsVersion['1.3'],
        })),
      );
      return true;
    },
  };
}
