/**
 * The dashboard: filters (kept in the URL) → each panel's load() → its render(). A change of filter aborts
 * the requests still running and redraws every panel; each panel shows its own loading, empty or
 * error state, so one failing query never blanks the page.
 */
import './style.css';
import { api, ApiError, type Answer } from './api';
import { registry, type DashboardPanel, type LoadContext } from './panel';
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
import { countryName } from './countries';
import { addFilterControls } from './filter-controls';
import { coverageOf, coverageSentence, recordSourceSentence, serverTimingSentence } from './coverage';
import { FILTER_NAMES } from '@tlsrum/shared/query';

const form = document.querySelector<HTMLFormElement>('#filters')!;
const scope = document.querySelector<HTMLElement>('#scope')!;
const notice = document.querySelector<HTMLElement>('#notice')!;
const root = document.querySelector<HTMLElement>('#panels')!;
addFilterControls(form);

/** The panels in page order; each owns what it asks for (`load`) and how it draws it (`render`). */
const panels: DashboardPanel<unknown>[] = [
  comparePanel(root),
  mapPanel(root),
  trendsPanel(root),
  phasesPanel(root),
  sharesPanel(root),
  cryptoPanel(root),
  whatIfPanel(root),
  alertsPanel(root),
  configurationPanel(root),
];

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
 * A site's view shows its own visitors first: when the site's beacon has sent records in the range and the
 * reader has not chosen a source, the view opens on source "page" (the URL says so; "All sources" in the
 * filter shows everything). One small question per site and range, remembered.
 */
const beaconSeen = new Map<string, Promise<boolean>>();
/** The reader picked a source (or the shared link named one): never overridden. */
let sourceChosen = new URLSearchParams(location.search).has('source');
/** The source is "page" because of the default above, not the reader: another site starts afresh. */
let sourceDefaulted = false;

function siteHasBeaconData(f: Filters, params: Record<string, string | undefined>, t: string, signal: AbortSignal) {
  const key = `${f.site} ${f.range}`;
  let seen = beaconSeen.get(key);
  if (!seen) {
    seen = api
      .query('compare', { from: params.from, to: params.to, site: f.site, dimensions: 'source' }, t, signal)
      .then((a) => a.cells.some((c) => c.key.source === 'page' && !c.suppressed && (c.records ?? 0) > 0))
      .catch(() => {
        beaconSeen.delete(key);
        return false;
      });
    beaconSeen.set(key, seen);
  }
  return seen;
}

function scopeText(site: string | null, f: Filters): string {
  if (!site) return 'All sites together';
  return `Site ${site}${f.source === 'page' ? ': its own visitors, measured by its beacon' : ''}`;
}

let controller: AbortController | null = null;

async function load(): Promise<void> {
  const f = readFilters();
  hook.filters = f;
  showFilters(f);
  controller?.abort();
  controller = new AbortController();
  const { signal } = controller;
  const params = apiParams(f);
  const t = token.get();
  for (const p of panels) p.panel.setState('loading');
  scope.textContent = scopeText(f.site, f);
  // A site chosen without a token: say so once, ask nothing.
  if (f.site && !t) {
    showNotice(tokenProblem(new ApiError(401, ''), f, t));
    hook.renders++;
    return;
  }
  showNotice(null);
  if (f.site && !f.source && !sourceChosen && (await siteHasBeaconData(f, params, t, signal))) {
    if (signal.aborted) return;
    sourceDefaulted = true;
    writeFilters({ ...f, source: 'page' }, { replace: true });
    return load();
  }
  let problem: string | null = null;

  const ctx: LoadContext = {
    filters: f,
    params,
    token: t,
    signal,
    whatif: api.whatif(params, t, signal),
    // The period in the range selector's own words ("Last 7 days").
    rangeLabel: (field('range') as HTMLSelectElement).selectedOptions[0]?.text ?? f.range,
    onSite: (site) => {
      scope.textContent = scopeText(site, f);
      followTokenSite(site, f);
    },
    onCountries: addCountries,
  };
  const draw = async (p: DashboardPanel<unknown>): Promise<void> => {
    const request = p.load(ctx);
    if ('skip' in request) return p.panel.setState('empty', request.skip);
    const answer = await request;
    if (signal.aborted) return;
    const drawn = await p.render(answer, ctx);
    if (signal.aborted) return;
    const flags = answer as { truncated?: boolean; sampled?: boolean };
    const note = flags.truncated
      ? 'Only the largest groups are shown.'
      : flags.sampled
        ? 'Estimated from the most recent connections of the range.'
        : '';
    p.panel.setState(drawn ? 'ready' : 'empty', drawn ? note : '');
  };
  // One failing query never blanks the page: a failed panel tries once more by itself (a busy collector
  // says when), then offers a Retry button. A token problem is said once, above the panels.
  const run = async (p: DashboardPanel<unknown>, tries = 2): Promise<void> => {
    try {
      await draw(p);
    } catch (err) {
      if (signal.aborted) return;
      const problemText = tokenProblem(err, f, t);
      if (problemText) {
        problem ??= problemText;
        return p.panel.setState('error', problemText);
      }
      if (tries > 1) {
        await new Promise((r) => setTimeout(r, retryDelayMs(err)));
        if (!signal.aborted) return run(p, tries - 1);
        return;
      }
      p.panel.setState('error', describeError(err), () => {
        p.panel.setState('loading');
        void run(p, 1);
      });
    }
  };
  const recordPanels = panels.filter((p) => p.drawsRecords).map((p) => p.panel);
  // One coverage answer for every panel that draws records (they share the filters).
  const coverage = api
    .query('compare', { ...params, dimensions: 'versionEvidence,source' }, t, signal)
    .then((a) => {
      if (signal.aborted) return;
      const c = coverageOf(a);
      const text = [coverageSentence(c), recordSourceSentence(c), f.site ? serverTimingSentence(c, f.site) : '']
        .filter(Boolean)
        .join(' ');
      for (const p of recordPanels) p.setCoverage(text);
    })
    .catch(() => {
      if (!signal.aborted) for (const p of recordPanels) p.setCoverage('');
    });
  await Promise.all([coverage, ...panels.map((p) => run(p))]);
  if (signal.aborted) return;
  if (problem) showNotice(problem);
  hook.renders++;
}

/** The country filter offers the countries with data (kept across filter changes). */
function addCountries(a: Answer) {
  const select = field('country') as HTMLSelectElement;
  const have = new Set([...select.options].map((o) => o.value));
  const fresh = a.cells.map((c) => c.key.country!).filter((c) => c && !have.has(c));
  if (fresh.length === 0) return;
  const current = select.value;
  const all = [...[...select.options].slice(1).map((o) => o.value), ...fresh].sort((x, y) =>
    countryName(x).localeCompare(countryName(y)),
  );
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
