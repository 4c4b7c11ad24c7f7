/**
 * Round trips and what-if: the scenarios ranked by how much p75 time to first byte they would save, for
 * the whole selection or the chosen country, with the range's round-trip accounting and the assumptions.
 */
import { SCENARIO_LABELS } from '@tlsrum/shared/query';
import type { WhatIfAnswer, WhatIfResult } from '../api';
import { axisChart, createPanel, type DashboardPanel } from '../panel';
import { countryName } from '../countries';
import { int, ms, pct } from '../format';
import { fillTable } from '../table';

/** Scenarios that price research prototypes rather than a setting a site owner has. */
const RESEARCH = new Set<string>(['combined_handshake']);

export function whatIfPanel(parent: HTMLElement): DashboardPanel<WhatIfAnswer> {
  const panel = createPanel(parent, {
    id: 'whatif',
    title: 'What would save the most time',
    description:
      'Estimated p50 / p75 time to first byte of new connections if each change were made, from this traffic’s own handshakes and RTTs (each connection saves the round trips removed × its RTT). Ranked by p75 saving.',
    link: { text: 'How it is estimated', href: './guide/whatif.html' },
    charts: [
      { label: 'Bar chart: p50 and p75 time-to-first-byte savings per scenario, largest first', className: 'tall' },
    ],
    // Full width below the chart: the accounting rows are long.
    table: { className: 'whatif-table', below: true },
    wide: true,
  });
  return {
    panel,
    load: (ctx) => ctx.whatif(),
    render(answer, ctx) {
      const country = ctx.filters.country;
      // The range in words ("Last 7 days"), as the range selector says it.
      const period = ctx.rangeLabel;
      const region = country ? answer.regions.find((r) => r.country === country) : null;
      const result: WhatIfResult | null | undefined = country ? region?.result : answer.overall;
      if (!result) return false;
      // A change that saves nothing for this traffic (no connection affected, or no time saved) is not
      // ranked: it is named once below the ranking instead.
      type Scenario = WhatIfResult['scenarios'][number];
      const saves = (s: Scenario) => s.affected > 0 && (s.saving.p75 > 0 || s.saving.p50 > 0);
      // Research prototypes no site owner can switch on are priced apart, never ranked among the changes.
      const isResearch = (s: Scenario) => RESEARCH.has(s.scenario);
      const scenarios = result.scenarios.filter((s) => saves(s) && !isResearch(s));
      const idle = result.scenarios.filter((s) => !saves(s) && !isResearch(s));
      const research = result.scenarios.filter(isResearch);
      const name = (scenario: keyof typeof SCENARIO_LABELS) => SCENARIO_LABELS[scenario];
      panel.draw(0, {
        ...axisChart(ms, { shadow: true }),
        grid: { left: 230, right: 24, top: 40, bottom: 30 },
        xAxis: { type: 'value', name: 'ms saved' },
        yAxis: { type: 'category', data: scenarios.map((s) => name(s.scenario)), inverse: true },
        series: [
          { name: 'p75 saving', type: 'bar', color: '#e15759', data: scenarios.map((s) => s.saving.p75) },
          { name: 'p50 saving', type: 'bar', color: '#4e79a7', data: scenarios.map((s) => s.saving.p50) },
        ],
      });
      const a = result.accounting;
      const where = country ? countryName(country) : (answer.site ?? 'all sites');
      const classes = Object.entries(a.tlsByClass)
        .filter(([, v]) => v.share > 0)
        .map(([k, v]) => `${k} ${pct(v.share)}`)
        .join(', ');
      fillTable(panel.table, `${period}, ${where}: ${int(a.connections)} new connections`, null, [
        ['RTT (median)', ms(a.rttMs ?? undefined)],
        [
          'round trips / connection',
          `${a.roundTrips.total} (DNS ${a.roundTrips.dns}, TCP ${a.roundTrips.tcp}, TLS ${a.roundTrips.tls})`,
        ],
        ['TLS handshakes', classes],
        ['repeat connections', pct(a.repeatShare)],
        ['TTFB p50 / p75', `${ms(a.ttfb.p50)} / ${ms(a.ttfb.p75)}`],
        ...scenarios.map((s) => [
          name(s.scenario),
          `${ms(s.ttfb.p50)} / ${ms(s.ttfb.p75)} (${pct(s.affected)} of connections)`,
        ]),
      ]);
      if (idle.length) {
        const none = document.createElement('p');
        none.className = 'note';
        none.textContent = `No saving for this traffic (not ranked): ${idle.map((s) => `${name(s.scenario)} (${pct(s.affected)} of connections affected)`).join('; ')}.`;
        panel.table.append(none);
      }
      for (const r of research) {
        const note = document.createElement('p');
        note.className = 'note research';
        note.textContent = `Research, not something you can switch on today: a ${name(r.scenario)} (TCP Fast Open with TLS 1.3, or prototypes such as TCPLS) would save ${ms(r.saving.p75)} at p75 for ${pct(r.affected)} of connections.`;
        panel.table.append(note);
      }
      const details = document.createElement('details');
      details.innerHTML = '<summary>Assumptions</summary><ul></ul>';
      for (const text of [
        ...answer.assumptions.general,
        ...result.scenarios.map((s) => `${name(s.scenario)}: ${s.assumption}`),
      ]) {
        details.querySelector('ul')!.append(Object.assign(document.createElement('li'), { textContent: text }));
      }
      panel.table.append(details);
      panel.setRows(
        scenarios.map((s, i) => ({
          rank: i + 1,
          scenario: s.scenario,
          region: country || 'all',
          ttfb_p50_now: a.ttfb.p50,
          ttfb_p75_now: a.ttfb.p75,
          ttfb_p50: s.ttfb.p50,
          ttfb_p75: s.ttfb.p75,
          saving_p50: s.saving.p50,
          saving_p75: s.saving.p75,
          affected_share: s.affected,
          round_trips_saved: s.roundTripsSaved,
        })),
      );
      return true;
    },
  };
}
