/**
 * A chart's figures in words, for a screen reader: the chart's box is an image named by its plain label,
 * and this says what it shows, with values as the chart's own tooltip writes them ("207 ms", "23 %") and
 * dates as its axis does ("6 Dec", "14:00"), never as timestamps. Read from the ECharts option the panel
 * draws, so it always says what is on screen. ECharts' own generated description is not used: it named
 * epoch milliseconds and series indices ("the data for TLS 1.2 · full is 0, 207.1"), and replaced the label.
 *
 * A category chart (bars per group) says each group's values; a time chart says, per line, its latest
 * value with its date and the lowest and highest over the period. Any other chart (the map, whose figures
 * are in its table) says nothing more than its label.
 */

type Formatter = (v: number) => string;

interface Axis {
  type?: string;
  data?: unknown[];
  axisLabel?: { formatter?: unknown };
}

interface Series {
  name?: string;
  type?: string;
  data?: unknown[];
}

/** Groups said at most; a chart with more says how many it left out. */
const MAX_GROUPS = 12;

/** A data item's number: a plain value, `{ value }`, or the value of a `[x, y]` pair. */
function valueOf(item: unknown): number | null {
  const v = Array.isArray(item)
    ? item[1]
    : item !== null && typeof item === 'object' && 'value' in item
      ? (item as { value: unknown }).value
      : item;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

const axes = (a: unknown): Axis[] => (Array.isArray(a) ? a : a ? [a] : []) as Axis[];

/** The chart's figures in words, or '' when it draws nothing this can say. */
export function chartText(option: Record<string, unknown>): string {
  const series = ((Array.isArray(option.series) ? option.series : []) as Series[]).filter(
    (s) => s.type === 'bar' || s.type === 'line',
  );
  if (series.length === 0) return '';
  const tooltip = option.tooltip as { valueFormatter?: unknown } | undefined;
  const format: Formatter =
    typeof tooltip?.valueFormatter === 'function' ? (tooltip.valueFormatter as Formatter) : String;
  const x = axes(option.xAxis)[0];
  if (x?.type === 'time') return timeText(series, format, x);
  const category = [x, axes(option.yAxis)[0]].find((a) => a?.type === 'category' && Array.isArray(a.data));
  return category ? categoryText(series, format, category.data!.map(String)) : '';
}

function categoryText(series: Series[], format: Formatter, groups: string[]): string {
  const said = groups.slice(0, MAX_GROUPS).map((group, i) => {
    const values = series.flatMap((s) => {
      const v = valueOf(s.data?.[i]);
      return v === null ? [] : [series.length === 1 ? format(v) : `${s.name ?? ''} ${format(v)}`];
    });
    return `${group}: ${values.length ? values.join(', ') : 'no figure'}`;
  });
  const more = groups.length - said.length;
  return `${said.join('; ')}${more > 0 ? `; and ${more} more in the CSV download` : ''}.`;
}

function timeText(series: Series[], format: Formatter, axis: Axis): string {
  const formatter = axis.axisLabel?.formatter;
  const when =
    typeof formatter === 'function'
      ? (t: number) => String((formatter as (t: number) => unknown)(t))
      : (t: number) => new Date(t).toISOString().slice(0, 10);
  const lines = series.flatMap((s) => {
    const points = (s.data ?? []).flatMap((item) => {
      const v = valueOf(item);
      const t = Array.isArray(item) ? item[0] : null;
      return v === null || typeof t !== 'number' ? [] : [[t, v] as const];
    });
    if (points.length === 0) return [];
    const [t, last] = points.reduce((a, b) => (b[0] > a[0] ? b : a));
    const values = points.map(([, v]) => v);
    const [low, high] = [Math.min(...values), Math.max(...values)];
    const spread = format(low) === format(high) ? '' : `, between ${format(low)} and ${format(high)} over the period`;
    // "on 7 Dec", "at 14:00" (a one-day range's axis names hours).
    const date = when(t);
    return [`${s.name ?? ''}: ${format(last)} ${/^\d\d:\d\d$/.test(date) ? 'at' : 'on'} ${date}${spread}`];
  });
  return lines.length ? `${lines.join('; ')}.` : '';
}
