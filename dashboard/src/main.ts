/**
 * The dashboard: filters (kept in the URL) → each panel's load() → its render(). A change of filter aborts
 * the requests still running and redraws every panel; each panel shows its own loading, empty or
 * error state, so one failing query never blanks the page.
 */
import './style.css';
import { api, ApiError, type Answer } from './api';
import { measured, registry, type DashboardPanel, type LoadContext, type PanelAction } from './panel';
import { apiParams, readFilters, token, writeFilters, type Filters } from './state';
import { comparePanel } from './panels/compare';
import { mapPanel } from './panels/map';
import { trendsPanel } from './panels/trends';
import { sharesPanel } from './panels/shares';
import { phasesPanel } from './panels/phases';
import { whatIfPanel } from './panels/whatif';
import { alertsPanel } from './panels/alerts';
import { configurationPanel } from './panels/configuration';
import { cryptoPanel } from './panels/crypto';
import { verdictPanel } from './panels/verdict';
import { compareCountries, countryName } from './countries';
import { addFilterControls } from './filter-controls';
import { FILTER_NAMES } from '@tlsrum/shared/query';
import { isEmptyStore } from './panels/verdict';

const EMPTY_STORE = 'Nothing recorded yet: the first panel says how to start.';

const form = document.querySelector<HTMLFormElement>('#filters')!;
const scope = document.querySelector<HTMLElement>('#scope')!;
const notice = document.querySelector<HTMLElement>('#notice')!;
const root = document.querySelector<HTMLElement>('#panels')!;
addFilterControls(form);

/** The panels in page order; each owns what it asks for (`load`) and how it draws it (`render`). */
const verdict = verdictPanel(root) as DashboardPanel<unknown>;
const alerts = alertsPanel(root) as DashboardPanel<unknown>;
const configuration = configurationPanel(root) as DashboardPanel<unknown>;
const panels: DashboardPanel<unknown>[] = [
  verdict,
  comparePanel(root),
  mapPanel(root),
  trendsPanel(root),
  phasesPanel(root),
  sharesPanel(root),
  cryptoPanel(root),
  whatIfPanel(root),
  alerts,
  configuration,
];

/**
 * The answer comes first. A site's view then leads with what needs attention (its alerts and its
 * configuration), the comparison after; every site together leads with the comparison and the map.
 */
function arrange(siteView: boolean): void {
  document.body.classList.toggle('site-view', siteView);
  const order = siteView
    ? [verdict, alerts, configuration, ...panels.filter((p) => p !== verdict && p !== alerts && p !== configuration)]
    : panels;
  root.append(...order.map((p) => p.panel.section));
}

/**
 * "3 groups hidden: fewer than 20 people each" when an answer held groups too small to show; for the what-if,
 * whether the figures the panel shows (the country filtered on, or the whole) were held back.
 */
function hiddenNote(answer: unknown, country: string | undefined): string {
  const w = answer as { regions?: { country: string; suppressed?: boolean }[]; overallSuppressed?: boolean };
  if (Array.isArray(w?.regions)) {
    const held = country ? w.regions.find((r) => r.country === country)?.suppressed : w.overallSuppressed;
    return held ? 'Hidden: too few people behind these figures to show them safely.' : '';
  }
  const a = answer as { cells?: { suppressed?: boolean }[]; minClients?: number };
  if (!Array.isArray(a?.cells) || typeof a.minClients !== 'number') return '';
  const n = a.cells.filter((c) => c.suppressed).length;
  if (n === 0) return '';
  return `${n} ${n === 1 ? 'group' : 'groups'} hidden: fewer than ${a.minClients} people each (too few to show safely).`;
}

/** For the browser test and for debugging: the charts by panel, and a counter of completed renders. */
const hook = { charts: registry, renders: 0, filters: readFilters() };
(window as unknown as { tlsrumDashboard: typeof hook }).tlsrumDashboard = hook;

function field(name: string) {
  return form.elements.namedItem(name) as HTMLSelectElement | HTMLInputElement;
}

function showFilters(f: Filters) {
  for (const k of [...FILTER_NAMES, 'range', 'metric'] as const) {
    const el = field(k) as HTMLSelectElement | null;
    // API-only filters (the crypto splits) have no control: a shared link may still carry them.
    if (!el) continue;
    if (f[k] && ![...el.options].some((o) => o.value === f[k]))
      el.append(new Option(k === 'country' ? countryName(f[k]) : f[k], f[k]));
    el.value = f[k];
  }
  (field('token') as HTMLInputElement).value = token.get();
}

/**
 * A problem with the token concerns the whole page: it is said once, above the panels (which are
 * hidden), never in each panel. "Needs a token" (a site chosen without one) differs from "invalid token".
 */
function tokenProblem(err: unknown, f: Filters, t: string): string | null {
  if (!(err instanceof ApiError)) return null;
  if (err.status === 401 && t)
    return 'This read token is not valid: it may be mistyped, or it was replaced when the site was registered again. Correct it and press "Apply token", or clear it to see all sites together.';
  if (err.status === 401)
    return `The data of ${f.site || 'one site'} alone needs that site's read token: enter it above and press "Apply token", or choose "All sites".`;
  if (err.status === 403)
    return `This read token is for another site (${err.message}). Choose that site, or "All sites".`;
  return null;
}

function showNotice(text: string | null): void {
  notice.textContent = text ?? '';
  notice.hidden = text === null;
  root.hidden = text !== null;
}

function describeError(err: unknown): string {
  // The collector says why it is unavailable (busy, a query limit, the store not ready): show its words.
  if (err instanceof ApiError && err.status === 503)
    return err.message || 'the collector is unavailable right now; retry in a few seconds.';
  if (err instanceof TypeError) return 'the collector could not be reached (network error).';
  return err instanceof Error ? err.message : String(err);
}

/** How long a failed panel waits before its own second try: what a busy collector asked for, within reason. */
function retryDelayMs(err: unknown): number {
  const seconds = err instanceof ApiError ? (err.retryAfter ?? 1) : 1;
  return Math.min(5, Math.max(1, seconds)) * 1000;
}

/**
 * `ask`, and once more after `retryDelayMs` if it fails — unless the failure is `final` (a token problem:
 * asking again cannot help) or the load was left. The second failure, or the first when no second try is
 * made, is thrown.
 */
async function askAgainOnce<T>(ask: () => Promise<T>, signal: AbortSignal, final: (err: unknown) => boolean) {
  try {
    return await ask();
  } catch (err) {
    if (signal.aborted || final(err)) throw err;
    await new Promise((r) => setTimeout(r, retryDelayMs(err)));
    if (signal.aborted) throw err;
    return ask();
  }
}

/** With a read token every answer is that site's: the Site selector shows it (and the URL keeps it). */
function followTokenSite(site: string | null, f: Filters): void {
  if (!site || f.site === site || !token.get()) return;
  const select = field('site') as HTMLSelectElement;
  if (![...select.options].some((o) => o.value === site)) select.append(new Option(site, site));
  select.value = site;
  const next = { ...f, site };
  hook.filters = next;
  writeFilters(next, { replace: true });
}

/**
 * On the page itself, for the benchmark and the browser tests: `data-panels` on <body> is "loading" from a
 * load's start and "settled" once every panel has drawn, found nothing or failed (after its own retry);
 * `data-failed-panels` then says how many failed. A newer load (a filter change) restarts it.
 */
function markPanels(state: 'loading' | 'settled'): void {
  document.body.dataset.panels = state;
  document.body.dataset.failedPanels =
    state === 'settled' ? String(panels.filter((p) => p.panel.section.dataset.state === 'error').length) : '';
}

/**
 * The answer for `key`, asked once and shared by every caller; a failed answer is forgotten, so the next call
 * (a panel's retry, the next load) asks again instead of reusing the failure.
 */
function askOnce<T>(cache: Map<string, Promise<T>>, key: string, ask: () => Promise<T>): Promise<T> {
  let answer = cache.get(key);
  if (!answer) {
    answer = ask();
    answer.catch(() => cache.delete(key));
    cache.set(key, answer);
  }
  return answer;
}

/**
 * A site's view shows its own visitors first: when the site's beacon has sent records in the range and the
 * reader has not chosen a source, the view opens on source "page" (the URL says so; "All sources" in the
 * filter shows everything). When the site shows nothing at all (no records, or every group under the people
 * rule) but its owner has sent synthetic runs with the read token, it opens on those (source "synthetic").
 * One small question per site and range for each, remembered.
 */
const sourcesSeen = new Map<string, Promise<{ beacon: boolean; shown: boolean }>>();
const ownRunsSeen = new Map<string, Promise<boolean>>();
/** The reader picked a source (or the shared link named one): never overridden. */
let sourceChosen = new URLSearchParams(location.search).has('source');
/** The source is "page" or "synthetic" because of the default above, not the reader: another site starts afresh. */
let sourceDefaulted = false;

/** Whether the site's beacon has records shown in the range, and whether any group of the site is shown at all. */
function siteSources(f: Filters, params: Record<string, string | undefined>, t: string, signal: AbortSignal) {
  return askOnce(sourcesSeen, `${f.site} ${f.range}`, () =>
    api
      .query('compare', { from: params.from, to: params.to, site: f.site, dimensions: 'source' }, t, signal)
      .then((a) => {
        const shown = a.cells.filter((c) => !c.suppressed && (c.records ?? 0) > 0);
        return { beacon: shown.some((c) => c.key.source === 'page'), shown: shown.length > 0 };
      }),
  ).catch(() => null);
}

/**
 * Whether the site's owner sent synthetic runs of it with the read token in the range (`pnpm synth --token`):
 * the token reads them with source "synthetic", without the people rule (the answer says `ownSynthetic`).
 */
function siteHasOwnRuns(
  site: string,
  f: Filters,
  params: Record<string, string | undefined>,
  t: string,
  signal: AbortSignal,
): Promise<boolean> {
  return askOnce(ownRunsSeen, `${site} ${f.range}`, () =>
    api
      .query(
        'compare',
        { from: params.from, to: params.to, site, source: 'synthetic', dimensions: 'source' },
        t,
        signal,
      )
      .then((a) => a.ownSynthetic === true && a.cells.some((c) => (c.records ?? 0) > 0)),
  ).catch(() => false);
}

/** `own`: the people rule the answers were exempt from (their `minClients`), when they are the owner's own runs. */
function scopeText(site: string | null, f: Filters, own: number | null = null): string {
  if (!site) return 'All sites together';
  if (own !== null)
    return `Site ${site}: your own synthetic runs, sent with your read token. No people in them, so shown without the ${own}-people rule.`;
  return `Site ${site}${f.source === 'page' ? ': its own visitors, measured by its beacon' : ''}`;
}

/** Shows the owner's own synthetic runs: the reader's choice from here on, like picking the source. */
function showOwnRuns(): void {
  [sourceChosen, sourceDefaulted] = [true, false];
  writeFilters({ ...readFilters(), source: 'synthetic' });
  void load();
}

let controller: AbortController | null = null;
/** Connections the what-if models (its `limit`). */
const WHATIF_SAMPLE = 50_000;

async function load(): Promise<void> {
  const f = readFilters();
  hook.filters = f;
  showFilters(f);
  controller?.abort();
  controller = new AbortController();
  const { signal } = controller;
  const params = apiParams(f);
  const t = token.get();
  arrange(Boolean(f.site || t));
  for (const p of panels) p.panel.setState('loading');
  markPanels('loading');
  scope.textContent = scopeText(f.site, f);
  scope.classList.remove('own-runs');
  // A site chosen without a token: say so once, ask nothing.
  if (f.site && !t) {
    showNotice(tokenProblem(new ApiError(401, ''), f, t));
    hook.renders++;
    markPanels('settled');
    return;
  }
  showNotice(null);
  if (f.site && !f.source && !sourceChosen) {
    const sources = await siteSources(f, params, t, signal);
    const source = sources?.beacon
      ? 'page'
      : sources && !sources.shown && (await siteHasOwnRuns(f.site, f, params, t, signal))
        ? 'synthetic'
        : '';
    if (signal.aborted) return;
    if (source) {
      sourceDefaulted = true;
      writeFilters({ ...f, source }, { replace: true });
      return load();
    }
  }
  let problem: string | null = null;
  /** The people rule the answers are exempt from when they are the owner's own runs (the scope line says so). */
  let ownRules: number | null = null;

  const asked = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, ask: () => Promise<T>): Promise<T> => askOnce(asked, key, ask) as Promise<T>;
  // A sample of 50 000 connections models the scenarios as well as the API's default 100 000 (the
  // savings are medians and quartiles) at half the time the page waits for it.
  // Asked first, as the slowest answer; asked again when a panel's retry calls for it after a failure.
  const whatif = () => once('whatif', () => api.whatif({ ...params, limit: String(WHATIF_SAMPLE) }, t, signal));
  void whatif().catch(() => undefined);
  const query: LoadContext['query'] = (route, extra) => {
    const q = { ...params, ...extra };
    return once(
      `${route}?${new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => Boolean(e[1])))}`,
      () => api.query(route, q, t, signal),
    );
  };
  // Without a chosen site, a read token's answers name its site: the verdict's comparison by stack (asked
  // anyway, and among the quickest answers) says which, so no panel waits for a slower one to know it.
  // Refused once (a busy collector), it is asked again as a panel's query is: the configuration and the
  // verdict's attention list read that site, and would otherwise ask for a token the reader has entered.
  const isTokenProblem = (err: unknown) => tokenProblem(err, f, t) !== null;
  const siteOfToken = (): Promise<string | null> =>
    askAgainOnce(() => query('compare', { dimensions: 'stack' }), signal, isTokenProblem).then(
      (a) => a.site ?? null,
      () => null,
    );
  const site = f.site ? Promise.resolve(f.site) : t ? siteOfToken() : Promise.resolve(null);
  const ctx: LoadContext = {
    filters: f,
    params,
    token: t,
    signal,
    whatif,
    site,
    query,
    alerts: () => once('alerts', () => site.then((s) => api.alerts({ site: s ?? undefined }, t, signal))),
    probes: (s) => once(`probes:${s}`, () => api.probes(s, t, signal)),
    // The period in the range selector's own words ("Last 7 days").
    rangeLabel: (field('range') as HTMLSelectElement).selectedOptions[0]?.text ?? f.range,
    onSite: (site) => {
      scope.textContent = scopeText(site, f, ownRules);
      followTokenSite(site, f);
    },
    onCountries: addCountries,
  };
  // The scope line and the Site selector follow the token's site as soon as it is known.
  void site.then((s) => {
    if (!signal.aborted && s) ctx.onSite(s);
  });
  let emptyStore = false;
  // An empty store (no record in the range, nothing filtered out): the panels point to the first one's steps.
  // Asked beside the panels' own queries, not before them: only an empty panel waits for it.
  // The owner's own runs: the scope line says so, and which people rule they are shown without.
  const evidence = ctx
    .query('compare', { dimensions: 'versionEvidence' })
    .then(async (a) => {
      emptyStore = isEmptyStore(ctx, { evidence: a });
      document.body.classList.toggle('empty-store', emptyStore);
      ownRules = a.ownSynthetic ? a.minClients : null;
      scope.classList.toggle('own-runs', ownRules !== null);
      if (ownRules !== null && !signal.aborted) scope.textContent = scopeText(a.site ?? (await site), f, ownRules);
    })
    .catch(() => undefined);
  const draw = async (p: DashboardPanel<unknown>): Promise<void> => {
    const request = p.load(ctx);
    if ('skip' in request) return p.panel.setState('empty', request.skip);
    const answer = await request;
    if (signal.aborted) return;
    if (answer && typeof answer === 'object' && 'skip' in answer) return p.panel.setState('empty', String(answer.skip));
    // The charts exist once ECharts has arrived (panel.ts): it loads while the queries run.
    await p.panel.ready();
    if (signal.aborted) return;
    const rendering = performance.now();
    const rendered = p.render(answer, ctx);
    // The panel's own drawing until it returns or first waits, in the browser's performance timeline
    // (developer tools, bench:dashboard): measured before awaiting it, which lets other panels' work run.
    measured(`render ${p.panel.section.id}`, rendering);
    const drawn = await rendered;
    if (signal.aborted) return;
    const flags = answer as { truncated?: boolean; sampled?: boolean };
    const note = flags.truncated
      ? 'Only the largest groups are shown.'
      : flags.sampled
        ? 'Estimated from a sample of the connections, spread over the whole range.'
        : '';
    const hidden = hiddenNote(answer, f.country);
    if (drawn) return p.panel.setState('ready', [note, hidden].filter(Boolean).join(' '));
    // Only a panel with nothing to draw needs to know whether the whole store is empty (what it says then).
    await evidence;
    if (signal.aborted) return;
    const empty = hidden || (emptyStore ? EMPTY_STORE : '');
    // Nothing to show for people, but the owner's own runs are there: say so, one click away.
    const own = Array.isArray((answer as { cells?: unknown })?.cells) ? await ownRunsAction() : null;
    if (signal.aborted) return;
    if (!own) return p.panel.setState('empty', empty);
    p.panel.setState(
      'empty',
      `${empty || 'No data for these filters.'} Your own synthetic runs of this site (sent with your read token) can be shown.`,
      own,
    );
  };
  /** The button to the owner's own runs, when this view is a site's with its token, not already on them, and it has some. */
  const ownRunsAction = async (): Promise<PanelAction | null> => {
    if (!t || f.source === 'synthetic') return null;
    const s = await site;
    if (!s || !(await siteHasOwnRuns(s, f, params, t, signal))) return null;
    return { label: 'Show your own runs', run: showOwnRuns };
  };
  // One failing query never blanks the page: a failed panel tries once more by itself (a busy collector
  // says when), then offers a Retry button. A token problem is said once, above the panels.
  const run = async (p: DashboardPanel<unknown>, again = true): Promise<void> => {
    try {
      await (again ? askAgainOnce(() => draw(p), signal, isTokenProblem) : draw(p));
    } catch (err) {
      if (signal.aborted) return;
      const problemText = tokenProblem(err, f, t);
      if (problemText) {
        problem ??= problemText;
        return p.panel.setState('error', problemText);
      }
      p.panel.setState('error', describeError(err), () => {
        p.panel.setState('loading');
        void run(p, false);
      });
    }
  };
  await Promise.all(panels.map((p) => run(p)));
  // The scope line's word on the owner's own runs comes from it: settled means said.
  await evidence;
  if (signal.aborted) return;
  if (problem) showNotice(problem);
  hook.renders++;
  markPanels('settled');
}

/** The country filter offers the countries with data (kept across filter changes). */
function addCountries(a: Answer) {
  const select = field('country') as HTMLSelectElement;
  const have = new Set([...select.options].map((o) => o.value));
  const fresh = a.cells.map((c) => c.key.country!).filter((c) => c && !have.has(c));
  if (fresh.length === 0) return;
  const current = select.value;
  const all = [...[...select.options].slice(1).map((o) => o.value), ...fresh].sort(compareCountries);
  select.length = 1;
  for (const c of all) select.append(new Option(countryName(c), c));
  select.value = current;
}

form.addEventListener('change', (e) => {
  const target = e.target as HTMLInputElement;
  if (target.name === 'token') return applyToken();
  if (target.name === 'source') [sourceChosen, sourceDefaulted] = [true, false];
  const f = { ...readFilters(), [target.name]: target.value } as Filters;
  if (target.name === 'site' && sourceDefaulted) [f.source, sourceDefaulted] = ['', false];
  writeFilters(f);
  void load();
});

/** The token takes effect on Enter, on leaving the field, and on the "Apply token" button — once per new value. */
function applyToken(): void {
  const typed = (field('token') as HTMLInputElement).value.trim();
  if (typed === token.get() && hook.renders > 0 && notice.hidden) return;
  token.set(typed);
  // A cleared token shows every site together again.
  if (!typed && readFilters().site) writeFilters({ ...readFilters(), site: '' });
  void load();
}
form.addEventListener('submit', (e) => {
  e.preventDefault();
  applyToken();
});
window.addEventListener('popstate', () => void load());

api.sites().then(
  ({ sites }) => {
    const select = field('site') as HTMLSelectElement;
    const current = readFilters().site;
    for (const s of sites) if (![...select.options].some((o) => o.value === s)) select.append(new Option(s, s));
    select.value = current;
  },
  () => undefined,
);
void load();
