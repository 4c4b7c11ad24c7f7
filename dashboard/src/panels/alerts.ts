/**
 * Regression alerts of the chosen site: every check's latest verdict (last hour and day against the
 * same window a week earlier), firing ones first. Alerts are per site: they need the site's read token.
 */
import { CHECK_LABELS, CHECK_STATUS_LABELS, PROBE_CHECK_LABELS } from '@tlsrum/shared/query';
import type { AlertsAnswer } from '../api';
import { createPanel, type DashboardPanel } from '../panel';
import { ms, pct, pValueText } from '../format';
import { fillTable } from '../table';

const HEAD = ['status', 'site', 'window', 'check', 'now', 'a week ago', 'change', 'significance', 'since'];

/** Field-data checks and probe change checks (window `probe`) in one table. */
const LABELS = { ...CHECK_LABELS, ...PROBE_CHECK_LABELS };
const isShare = (check: string) => check.endsWith('_drop');
const value = (check: string, v: number | null) => (v === null ? '—' : isShare(check) ? pct(v) : ms(v));
const change = (check: string, v: number | null) =>
  v === null ? '—' : `${v > 0 ? '+' : ''}${Math.round(v * 100)} ${isShare(check) ? 'pt' : '%'}`;

export function alertsPanel(parent: HTMLElement): DashboardPanel<AlertsAnswer> {
  const panel = createPanel(parent, {
    id: 'alerts',
    title: 'Regression alerts',
    description:
      'The last hour and day against the same window a week earlier. A check fires only with enough data, a large enough change and a significant test. Window "probe": a change the scheduled TLS probe saw.',
    link: { text: 'How the checks work', href: './guide/alerts.html' },
    charts: [],
    table: { className: 'alerts-table', below: true },
    wide: true,
  });
  return {
    panel,
    // Alerts are per site: without a site and a token there is nothing this viewer may see.
    load: (ctx) =>
      ctx.filters.site || ctx.token
        ? ctx.alerts()
        : { skip: 'Alerts are per site: enter your site’s read token above to see them.' },
    render(answer) {
      if (answer.alerts.length === 0) return false;
      // One site: no site column. Firing checks first and in view; the quiet ones one click down.
      const sites = new Set(answer.alerts.map((a) => a.site));
      const head = sites.size > 1 ? HEAD : HEAD.filter((h) => h !== 'site');
      const row = (a: (typeof answer.alerts)[number]) => ({
        className: `alert-${a.status}`,
        cells: [
          CHECK_STATUS_LABELS[a.status],
          ...(sites.size > 1 ? [a.hostname && a.hostname !== a.site ? `${a.site} (${a.hostname})` : a.site] : []),
          a.window === 'probe' ? 'probe' : `last ${a.window}`,
          LABELS[a.check],
          value(a.check, a.current),
          value(a.check, a.baseline),
          change(a.check, a.change),
          pValueText(a.pValue),
          a.since === null ? '' : new Date(a.since).toISOString().slice(0, 16).replace('T', ' '),
        ],
      });
      const firing = answer.alerts.filter((a) => a.status === 'firing');
      const quiet = answer.alerts.filter((a) => a.status !== 'firing');
      const holder = document.createElement('div');
      if (firing.length) fillTable(holder, `${firing.length} firing`, head, firing.map(row));
      else
        holder.append(
          Object.assign(document.createElement('p'), { className: 'note', textContent: 'Nothing firing.' }),
        );
      if (quiet.length) {
        const details = document.createElement('details');
        const inner = document.createElement('div');
        details.append(
          Object.assign(document.createElement('summary'), {
            textContent: `The other ${quiet.length} checks: ${quiet.filter((a) => a.status === 'ok').length} ok, ${quiet.filter((a) => a.status === 'insufficient_data').length} with too little data to say`,
          }),
          inner,
        );
        fillTable(inner, 'Checks not firing', head, quiet.map(row));
        holder.append(details);
      }
      panel.table.replaceChildren(holder);
      panel.setRows(
        answer.alerts.map((a) => ({
          site: a.site,
          window: a.window,
          check: a.check,
          status: a.status,
          current: a.current ?? undefined,
          baseline: a.baseline ?? undefined,
          change: a.change ?? undefined,
          p_value: a.pValue ?? undefined,
          samples_current: a.samples.current ?? undefined,
          samples_baseline: a.samples.baseline ?? undefined,
          since: a.since === null ? undefined : new Date(a.since).toISOString(),
          evaluated_at: new Date(a.evaluatedAt).toISOString(),
        })),
      );
      return true;
    },
  };
}
