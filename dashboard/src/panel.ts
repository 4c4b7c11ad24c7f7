/**
 * One dashboard panel: a titled section with its charts, a CSV download of exactly the data drawn, and
 * loading / empty / error states (`data-state` on the section, also read by the browser test).
 */
import { echarts, type EChartsType } from './echarts';
import { download, type Row } from './csv';

export type PanelState = 'loading' | 'ready' | 'empty' | 'error';

export interface Panel {
  id: string;
  section: HTMLElement;
  charts: EChartsType[];
  setState(state: PanelState, message?: string): void;
  setRows(rows: Row[]): void;
  resize(): void;
}

/** Every chart on the page, by panel, for resizing and for the browser test (window.tlsrumDashboard). */
export const registry = new Map<string, EChartsType[]>();

export function createPanel(
  parent: HTMLElement,
  opts: {
    id: string;
    title: string;
    description: string;
    charts: { label: string; className?: string }[];
    aside?: HTMLElement;
    /** The aside goes below the charts instead of beside them. */
    asideBelow?: boolean;
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
  section.querySelector('.desc')!.textContent = opts.description;
  const body = section.querySelector<HTMLElement>('.body')!;
  if (opts.asideBelow) body.classList.add('stacked');
  const holder = section.querySelector<HTMLElement>('.charts')!;
  if (opts.aside) body.append(opts.aside);
  parent.append(section);

  const charts = opts.charts.map((c) => {
    const el = document.createElement('div');
    el.className = `chart ${c.className ?? ''}`;
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', c.label);
    el.tabIndex = 0;
    holder.append(el);
    const chart = echarts.init(el, undefined, { renderer: 'canvas' });
    // Charts follow their box (grid reflow, phone rotation), not only the window.
    new ResizeObserver(() => chart.resize()).observe(el);
    return chart;
  });
  registry.set(opts.id, charts);

  let rows: Row[] = [];
  const button = section.querySelector<HTMLButtonElement>('.csv')!;
  button.setAttribute('aria-label', `Download the data of "${opts.title}" as CSV`);
  button.addEventListener('click', () => download(`tlsrum-${opts.id}.csv`, rows));
  const status = section.querySelector<HTMLElement>('.status')!;

  return {
    id: opts.id,
    section,
    charts,
    setState(state, message = '') {
      section.dataset.state = state;
      section.setAttribute('aria-busy', String(state === 'loading'));
      status.textContent =
        state === 'loading' ? 'Loading…' : state === 'empty' ? message || 'No data for these filters.' : state === 'error' ? `Could not load: ${message}` : message;
      status.className = `status ${state}`;
      for (const c of charts) {
        if (state === 'loading') c.showLoading('default', { text: '' });
        else c.hideLoading();
        if (state === 'empty' || state === 'error') c.clear();
      }
    },
    setRows(r) {
      rows = r;
      button.disabled = r.length === 0;
    },
    resize() {
      for (const c of charts) c.resize();
    },
  };
}
