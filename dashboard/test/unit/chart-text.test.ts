import { expect, it } from 'vitest';
import { chartText } from '../../src/chart-text';
import { ms, pct } from '../../src/format';
import { axisChart, timeAxis } from '../../src/panel';

const DAY = 86_400_000;
const T = Date.UTC(2026, 11, 1);

it("says a bar chart's groups with their values as its tooltip writes them", () => {
  const text = chartText({
    ...axisChart(ms),
    xAxis: { type: 'category', data: ['TLS 1.2 · full', 'TLS 1.3 · full', 'h3 · 0-RTT'] },
    yAxis: { type: 'value' },
    series: [{ name: 'p75', type: 'bar', data: [207.1, { value: 115.3 }, 1] }],
  });
  expect(text).toBe('TLS 1.2 · full: 207 ms; TLS 1.3 · full: 115 ms; h3 · 0-RTT: 1.0 ms.');
});

it('names each series of a group when there are several, and the groups of a horizontal chart', () => {
  const text = chartText({
    ...axisChart(ms),
    xAxis: { type: 'value' },
    yAxis: { type: 'category', data: ['HTTP/3', 'TLS 1.3'] },
    series: [
      { name: 'p75 saving', type: 'bar', data: [77, 11] },
      { name: 'p50 saving', type: 'bar', data: [36, null] },
    ],
  });
  expect(text).toBe('HTTP/3: p75 saving 77 ms, p50 saving 36 ms; TLS 1.3: p75 saving 11 ms.');
});

it('says a time chart per line: its latest value and date, and its range over the period — never a timestamp', () => {
  const text = chartText({
    ...axisChart(pct),
    xAxis: timeAxis('7d'),
    series: [
      {
        name: 'HTTP/3',
        type: 'line',
        data: [
          [T, 0.3],
          [T + 2 * DAY, 0.32],
          [T + DAY, 0.33],
        ],
      },
      {
        name: 'HTTP/1.1',
        type: 'line',
        data: [
          [T, 0.12],
          [T + DAY, 0.12],
        ],
      },
      { name: 'empty', type: 'line', data: [] },
    ],
  });
  expect(text).toBe('HTTP/3: 32 % on 3 Dec, between 30 % and 33 % over the period; HTTP/1.1: 12 % on 2 Dec.');
  expect(text).not.toMatch(/\d{10,}/);
  // A one-day range: the hour, as its axis says it.
  expect(
    chartText({
      ...axisChart(ms),
      xAxis: timeAxis('24h'),
      series: [{ name: 'h3', type: 'line', data: [[T + 14 * 3_600_000, 86]] }],
    }),
  ).toBe('h3: 86 ms at 14:00.');
});

it('says nothing more than the label for a chart it cannot read (the map), and caps a long list of groups', () => {
  expect(chartText({ series: [{ type: 'map', data: [{ name: 'DE', value: 40 }] }] })).toBe('');
  const groups = Array.from({ length: 15 }, (_, i) => `g${i}`);
  const text = chartText({
    xAxis: { type: 'category', data: groups },
    series: [{ name: 'n', type: 'bar', data: groups.map((_, i) => i) }],
  });
  expect(text).toMatch(/^g0: 0; g1: 1; .*g11: 11; and 3 more in the CSV download\.$/);
});
