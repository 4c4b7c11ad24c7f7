/**
 * One dashboard panel: a titled section with its charts, an optional table, a CSV download of exactly
 * the data drawn, and loading / empty / error states (`data-state` on the section, also read by the
 * browser test). Panels own only what they draw; everything every panel does lives here.
 */
import type { EChartsType } from './echarts';
import { download, type Row } from './csv';
import { importAgainOnFailure } from './lazy';
import { chartText } from './chart-text';
import type { AlertsAnswer, ProbesAnswer, QueryAnswer, WhatIfAnswer } from '@tlsrum/shared/query/schemas';
import type { Filters } from './state';

export type PanelState = 'loading' | 'ready' | 'empty' | 'error';

export interface Panel {
  id: string;
  section: HTMLElement;
  /** The boxes the charts draw in, there from the start (captions and layout need them before any chart). */
  boxes: HTMLElement[];
  /** The charts, one per box once `ready()` has resolved (empty before). */
  charts: EChartsType[];
  /** Creates the charts once ECharts has arrived: awaited before a panel draws. */
  ready(): Promise<void>;
  /** The panel's table holder (empty when the panel has none); emptied with the charts. */
  table: HTMLElement;
  /**
   * With `retry`, an error state offers a Retry button that calls it; with an action (`{label, run}`), an
   * empty or ready state offers a button of that label after its message (e.g. "Show your own runs").
   */
  setState(state: PanelState, message?: string, retry?: (() => void) | PanelAction): void;
  setRows(rows: Row[]): void;
  /** Replaces chart `i`'s whole option (no merge with the previous filter's series), accessible. */
  draw(i: number, option: Record<string, unknown>): void;
}

/** A button beside a panel's message: what the reader can do about what the message says. */
export interface PanelAction {
  label: string;
  run: () => void;
}

/** Every chart on the page, by panel, for the browser test (window.tlsrumDashboard). */
export const registry = new Map<string, EChartsType[]>();

/**
 * ECharts is most of the dashboard's code: a chunk of its own, asked for as this module starts and evaluated
 * after the page has sent its first queries (main.ts), so the collector works on the answers while the
 * browser reads the charting code instead of after it. A failed fetch is asked again on the next need.
 */
export const charting = importAgainOnFailure(() => import('./echarts'));
void charting().catch(() => undefined);

export function createPanel(
  parent: HTMLElement,
  opts: {
    id: string;
    title: string;
    description: string;
    /** A guide that explains the panel, linked after the description. */
    link?: { text: string; href: string };
    charts: { label: string; className?: string }[];
    /** A table beside the charts, or below them (`below`) where its rows are long. */
    table?: { className?: string; below?: boolean };
    wide?: boolean;
  },
): Panel {
  const section = document.createElement('section');
  section.className = `panel${opts.wide ? ' wide' : ''}`;
  section.id = opts.id;
  section.setAttribute('aria-labelledby', `${opts.id}-title`);
  section.innerHTML = `
    <div class="panel-head">
      <h2 id="${opts.id}-title"></h2>
      <button type="button" class="csv" disabled>CSV</button>
    </div>
    <p class="desc"></p>
    <div class="body"><div class="charts"></div></div>
    <p class="status" role="status" aria-live="polite"></p>`;
  section.querySelector('h2')!.textContent = opts.title;
  const desc = section.querySelector<HTMLElement>('.desc')!;
  desc.textContent = opts.description;
  desc.hidden = opts.description === '';
  if (opts.link)
    desc.append(
      ' ',
      Object.assign(document.createElement('a'), {
        textContent: opts.link.text,
        href: opts.link.href,
        target: '_blank',
        rel: 'noopener',
      }),
    );
  const body = section.querySelector<HTMLElement>('.body')!;
  const holder = section.querySelector<HTMLElement>('.charts')!;
  const table = document.createElement('div');
  if (opts.table) {
    table.className = `table-wrap ${opts.table.className ?? ''}`;
    if (opts.table.below) body.classList.add('stacked');
    body.append(table);
  }
  parent.append(section);

  const boxes = opts.charts.map((c) => {
    const el = document.createElement('div');
    el.className = `chart ${c.className ?? ''}`;
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', c.label);
    el.tabIndex = 0;
    holder.append(el);
    return el;
  });
  const charts: EChartsType[] = [];
  let created: Promise<void> | null = null;
  const ready = () =>
    (created ??= (boxes.length === 0 ? Promise.resolve(null) : charting()).then(
      (module) => {
        if (!module || charts.length) return;
        const { echarts } = module;
        const creating = performance.now();
        for (const el of boxes) {
          const chart = echarts.init(el, undefined, { renderer: 'canvas' });
          // Charts follow their box (window resize, grid reflow, phone rotation). A resize redraws the whole
          // chart, so only a box that changed size gets one (the observer also reports every box once at start).
          new ResizeObserver(([entry]) => {
            const { width, height } = entry!.contentRect;
            if (Math.round(width) !== chart.getWidth() || Math.round(height) !== chart.getHeight()) chart.resize();
          }).observe(el);
          charts.push(chart);
        }
        measured(`charts ${opts.id}`, creating);
      },
      (err: unknown) => {
        created = null;
        throw err;
      },
    ));
  registry.set(opts.id, charts);

  let rows: Row[] = [];
  const button = section.querySelector<HTMLButtonElement>('.csv')!;
  button.setAttribute('aria-label', `Download the data of "${opts.title}" as CSV`);
  button.addEventListener('click', () => download(`tlsrum-${opts.id}.csv`, rows));
  const status = section.querySelector<HTMLElement>('.status')!;
  const setRows = (r: Row[]) => {
    rows = r;
    button.disabled = r.length === 0;
  };

  return {
    id: opts.id,
    section,
    boxes,
    charts,
    ready,
    table,
    setState(state, message = '', retry) {
      section.dataset.state = state;
      section.setAttribute('aria-busy', String(state === 'loading'));
      status.textContent =
        state === 'loading'
          ? 'Loading…'
          : state === 'empty'
            ? message || 'No data for these filters.'
            : state === 'error'
              ? `Could not load: ${message}`
              : message;
      status.className = `status ${state}`;
      const action =
        typeof retry === 'function'
          ? state === 'error' && { label: 'Retry', className: 'retry', run: retry }
          : retry && (state === 'empty' || state === 'ready') && { ...retry, className: 'action' };
      if (action) {
        const button = Object.assign(document.createElement('button'), {
          type: 'button',
          className: action.className,
          textContent: action.label,
        });
        button.addEventListener('click', action.run, { once: true });
        status.append(' ', button);
      }
      // Nothing from the previous filters may stay on screen or in the download.
      if (state === 'empty' || state === 'error') {
        for (const c of charts) c.clear();
        boxes.forEach((el, i) => el.setAttribute('aria-label', opts.charts[i]!.label));
        table.replaceChildren();
        setRows([]);
      }
    },
    setRows,
    draw(i, option) {
      // No entry animation: a chart shows its figures at once, and fourteen charts animating together
      // would hold the page's main thread for a second after their answers came.
      charts[i]!.setOption({ animation: false, ...option }, true);
      // A screen reader hears the chart's label, then its figures in words (chart-text.ts).
      const label = opts.charts[i]!.label;
      const text = chartText(option);
      boxes[i]!.setAttribute('aria-label', text ? `${label}${/[.!?]$/.test(label) ? '' : '.'} ${text}` : label);
    },
  };
}

/**
 * Names a stretch of the page's work since `start` in the browser's performance timeline ("tlsrum render
 * compare"): the developer tools show it, bench:dashboard reads it. Never fails the page where a browser
 * lacks the timeline's options form.
 */
export function measured(name: string, start: number): void {
  try {
    performance.measure(`tlsrum ${name}`, { start });
  } catch {
    // Nothing to name it in: the page goes on.
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/**
 * "27 Nov", in UTC. Written out rather than by Intl.DateTimeFormat: the page's first use of the browser's
 * locale data costs 40–70 ms of a slow machine's main thread, and the dashboard's texts are English.
 */
const dayMonth = (t: number) => {
  const d = new Date(t);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
};

/** A time axis labelled with dates ("27 Nov"), or hours ("14:00", UTC) for a one-day range: never bare day numbers. */
export function timeAxis(range: string) {
  return {
    type: 'time',
    axisLabel: {
      hideOverlap: true,
      formatter: (t: number) => (range === '24h' ? new Date(t).toISOString().slice(11, 16) : dayMonth(t)),
    },
  };
}

/** What every chart with a category or time axis shares: an axis tooltip in the chart's unit, the legend on top. */
export function axisChart(format: (v: number) => string, opts: { shadow?: boolean } = {}) {
  return {
    tooltip: { trigger: 'axis', valueFormatter: format, ...(opts.shadow ? { axisPointer: { type: 'shadow' } } : {}) },
    legend: { top: 0 },
  };
}

/** What a panel's `load()` may use: the filters, the token, the abort signal, and what panels share. */
export interface LoadContext {
  filters: Filters;
  /** The filters as API query parameters. */
  params: Record<string, string | undefined>;
  token: string;
  signal: AbortSignal;
  /** A query route's answer over the page's filters plus `extra`, asked once per load however many panels want it. */
  query(
    route: 'compare' | 'timeseries' | 'map' | 'phases',
    extra: Record<string, string | undefined>,
  ): Promise<QueryAnswer>;
  /** The site's alerts and probes, asked once per load (the verdict and their own panels share them). */
  alerts(): Promise<AlertsAnswer>;
  probes(site: string): Promise<ProbesAnswer>;
  /**
   * The site this view reads: the one chosen, or the one the read token belongs to when none is chosen
   * (a token entered without choosing a site, as the README says to); null for every site together.
   */
  site: Promise<string | null>;
  /** One what-if answer per load, shared by the panels that price something with it (asked again after a failure). */
  whatif: () => Promise<WhatIfAnswer>;
  /** The chosen range in the range selector's own words ("Last 7 days"). */
  rangeLabel: string;
  /** A read token scopes every answer to its site: the page follows the site an answer names. */
  onSite(site: string | null): void;
  /** The countries an answer has data for (the country filter offers them). */
  onCountries(answer: QueryAnswer): void;
}

/** A panel that has nothing to ask for these filters says why instead (e.g. alerts need a site). */
export interface Skip {
  skip: string;
}

/** A dashboard panel: what it asks the collector for (`load`) and how it draws the answer (`render`). */
export interface DashboardPanel<A = unknown> {
  panel: Panel;
  load(ctx: LoadContext): Promise<A | Skip> | Skip;
  /** False when there is nothing to draw (the panel then shows its empty state). */
  render(answer: A, ctx: LoadContext): boolean | Promise<boolean>;
}
