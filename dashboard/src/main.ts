/**
 * The dashboard: filters (kept in the URL) → one request per panel → charts. A change of filter aborts
 * the requests still running and redraws every panel; each panel shows its own loading, empty or
 * error state, so one failing query never blanks the page.
 */
import './style.css';
import { api, ApiError, type Answer } from './api';
import { registry, type Panel } from './panel';
import { apiParams, readFilters, token, writeFilters, type Filters } from './state';
import { comparePanel } from './panels/compare';
import { mapPanel } from './panels/map';
import { trendsPanel } from './panels/trends';
import { sharesPanel } from './panels/shares';
import { phasesPanel } from './panels/phases';
import { whatIfPanel } from './panels/whatif';
import { alertsPanel } from './panels/alerts';
import { configurationPanel } from './panels/configuration';
import { CRYPTO_SPLITS, cryptoPanel } from './panels/crypto';
import { countryName } from './countries';
import { addFilterControls } from './filter-controls';
import { coverageOf, coverageSentence, recordSourceSentence, serverTimingSentence } from './coverage';
import { FILTER_NAMES } from '@tlsrum/shared/query';

const form = document.querySelector<HTMLFormElement>('#filters')!;
const scope = document.querySelector<HTMLElement>('#scope')!;
const notice = document.querySelector<HTMLElement>('#notice')!;
const root = document.querySelector<HTMLElement>('#panels')!;
addFilterControls(form);

const compare = comparePanel(root);
const map = mapPanel(root);
const trends = trendsPanel(root);
const phases = phasesPanel(root);
const shares = sharesPanel(root);
const crypto = cryptoPanel(root);
const whatif = whatIfPanel(root);
const alerts = alertsPanel(root);
const config = configurationPanel(root);
const panels: Panel[] = [compare.panel, map.panel, trends.panel, phases.panel, shares.panel, crypto.panel, whatif.panel, alerts.panel, config.panel];
/** The panels whose figures come from records: each states how much of them is measured. */
const recordPanels: Panel[] = [compare.panel, map.panel, trends.panel, phases.panel, shares.panel, crypto.panel, whatif.panel];

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
    if (f[k] && ![...el.options].some((o) => o.value === f[k])) el.append(new Option(k === 'country' ? countryName(f[k]) : f[k], f[k]));
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
  if (err.status === 401 && t) return 'This read token is not valid: it may be mistyped, or it was replaced when the site was registered again. Correct it and press "Apply token", or clear it to see all sites together.';
  if (err.status === 401) return `The data of ${f.site || 'one site'} alone needs that site's read token: enter it above and press "Apply token", or choose "All sites".`;
  if (err.status === 403) return `This read token is for another site (${err.message}). Choose that site, or "All sites".`;
  return null;
}

function showNotice(text: string | null): void {
  notice.textContent = text ?? '';
  notice.hidden = text === null;
  root.hidden = text !== null;
}

function describeError(err: unknown): string {
  if (err instanceof ApiError && err.status === 503) return 'the collector cannot reach its store right now; retry in a few seconds.';
  return err instanceof Error ? err.message : String(err);
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
  for (const p of panels) p.setState('loading');
  scope.textContent = f.site ? `Site ${f.site}` : 'All sites together';
  // A site chosen without a token: say so once, ask nothing.
  if (f.site && !t) {
    showNotice(tokenProblem(new ApiError(401, ''), f, t));
    hook.renders++;
    return;
  }
  showNotice(null);
  let problem: string | null = null;

  const run = async <A extends object>(panel: Panel, request: Promise<A>, draw: (a: A) => boolean | Promise<boolean>) => {
    try {
      const answer = await request;
      if (signal.aborted) return;
      const drawn = await draw(answer);
      if (signal.aborted) return;
      const flags = answer as { truncated?: boolean; sampled?: boolean };
      const note = flags.truncated ? 'Only the largest groups are shown.' : flags.sampled ? 'Estimated from the most recent connections of the range.' : '';
      panel.setState(drawn ? 'ready' : 'empty', drawn ? note : '');
    } catch (err) {
      if (signal.aborted) return;
      const p = tokenProblem(err, f, t);
      if (p) problem ??= p;
      panel.setState('error', p ?? describeError(err));
    }
  };
  const whatifAnswer = api.whatif(params, t, signal);
  // One coverage answer for every panel that draws records (they share the filters).
  const coverage = api
    .query('compare', { ...params, dimensions: 'versionEvidence,source' }, t, signal)
    .then((a) => {
      if (signal.aborted) return;
      const c = coverageOf(a);
      const text = [coverageSentence(c), recordSourceSentence(c), f.site ? serverTimingSentence(c, f.site) : ''].filter(Boolean).join(' ');
      for (const p of recordPanels) p.setCoverage(text);
    })
    .catch(() => {
      if (!signal.aborted) for (const p of recordPanels) p.setCoverage('');
    });
  await Promise.all([
    coverage,
    run(compare.panel, api.query('compare', { ...params, dimensions: 'stack,mode' }, t, signal), (a) => {
      // A read token scopes every answer to its site, even when no site is chosen: say which data this is.
      scope.textContent = a.site ? `Site ${a.site}` : 'All sites together';
      followTokenSite(a.site, f);
      return compare.render(a);
    }),
    run(
      map.panel,
      api.query('map', params, t, signal).then((a) => {
        addCountries(a);
        return a;
      }),
      (a) => map.render(a, f.metric),
    ),
    run(trends.panel, api.query('timeseries', { ...params, dimensions: 'stack' }, t, signal), (a) => trends.render(a, f.metric)),
    run(shares.panel, api.query('timeseries', params, t, signal), (a) => shares.render(a)),
    run(phases.panel, api.query('phases', { ...params, dimensions: 'stack,mode' }, t, signal), (a) => phases.render(a)),
    run(
      crypto.panel,
      Promise.all([
        Promise.all(CRYPTO_SPLITS.map((d) => api.query('compare', { ...params, dimensions: d }, t, signal))),
        api.query('timeseries', { ...params, dimensions: 'pq' }, t, signal),
        api.query('compare', { ...params, dimensions: 'browser,cryptoSource' }, t, signal),
      ]).then(([splits, pq, coverage]) => ({ splits: Object.fromEntries(CRYPTO_SPLITS.map((d, i) => [d, splits[i]!])) as Record<(typeof CRYPTO_SPLITS)[number], Answer>, pq, coverage })),
      (a) => crypto.render(a),
    ),
    run(
      whatif.panel,
      whatifAnswer,
      // The period in the range selector's own words ("Last 7 days").
      (a) => whatif.render(a, f.country, (field('range') as HTMLSelectElement).selectedOptions[0]?.text ?? f.range),
    ),
    // Alerts are per site: without a site and a token there is nothing this viewer may see.
    f.site || t
      ? run(alerts.panel, api.alerts({ site: params.site }, t, signal), (a) => alerts.render(a))
      : Promise.resolve(alerts.panel.setState('empty', 'Alerts are per site: choose a site and enter its read token to see them.')),
    // The probe profile is per site too; its recommendations are priced by the same what-if answer.
    f.site
      ? run(config.panel, api.probes(f.site, t, signal).then(async (p) => ({ p, w: await whatifAnswer.catch(() => null) })), ({ p, w }) => config.render(p, w))
      : Promise.resolve(config.panel.setState('empty', 'The configuration is per site: choose a site (and enter its read token) to see its TLS set-up.')),
  ]);
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
  const all = [...[...select.options].slice(1).map((o) => o.value), ...fresh].sort((x, y) => countryName(x).localeCompare(countryName(y)));
  select.length = 1;
  for (const c of all) select.append(new Option(countryName(c), c));
  select.value = current;
}

form.addEventListener('change', (e) => {
  const target = e.target as HTMLInputElement;
  if (target.name === 'token') return applyToken();
  const f = { ...readFilters(), [target.name]: target.value } as Filters;
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
