/**
 * "Configuration": the site's TLS set-up as the collector's scheduled probe last saw it (docs/probe.md) —
 * a checklist per probed hostname, each missing item with the saving the what-if model estimates from this
 * site's own visitors, and what changed when. Written for a site owner: one sentence per item, the
 * assumptions one click away. Per site: needs the site's read token.
 */
import { CHECKLIST, type ConfigCheck, type Verdict } from '@tlsrum/probe/checks';
import type { ProbeResult } from '@tlsrum/shared/probe';
import { SCENARIO_LABELS } from '@tlsrum/shared/query';
import type { ProbesAnswer, WhatIfAnswer } from '../api';
import { createPanel, type DashboardPanel } from '../panel';
import { ms } from '../format';
import { fillTable } from '../table';

const MARK = { pass: '✓', fail: '✗', unknown: '?' } as const;
// The row's class and the downloaded rows' `ok` column keep their true / false / null spelling.
const OK = { pass: 'true', fail: 'false', unknown: 'null' } as const;
const verdict = (item: ConfigCheck, r: ProbeResult): Verdict => item.read(r).status;
const when = (t: number) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

export function configurationPanel(
  parent: HTMLElement,
): DashboardPanel<{ probes: ProbesAnswer; whatif: WhatIfAnswer | null }> {
  const panel = createPanel(parent, {
    id: 'config',
    title: 'Configuration',
    description:
      "The site's TLS set-up as the collector's probe saw it, what each missing item would save your visitors (estimated from this site's own data), and what changed when.",
    charts: [],
    table: { className: 'config', below: true },
    wide: true,
  });
  return {
    panel,
    // The probe profile is per site; its recommendations are priced by the page's what-if answer.
    load: (ctx) => {
      const skip = {
        skip: 'The configuration is per site: enter your read token (or choose your site and enter its token) to see its TLS set-up.',
      };
      // A token entered without choosing a site reads the token's site.
      if (!ctx.filters.site && !ctx.token) return skip;
      return ctx.site.then(async (site) => {
        if (!site) return skip;
        const probes = await ctx.probes(site);
        if (probes.latest.length === 0)
          return {
            skip:
              probes.intervalMs > 0
                ? `Not probed yet: the collector probes ${site} every ${Math.round(probes.intervalMs / 60_000)} min, and its set-up shows here after the first probe.`
                : `Not probed: scheduled probing is off on this collector. Run "pnpm probe https://${site}/" to check the set-up yourself.`,
          };
        return { probes, whatif: await ctx.whatif().catch(() => null) };
      });
    },
    render({ probes, whatif }) {
      if (probes.latest.length === 0) return false;
      const main = probes.latest.find((l) => l.hostname === probes.site) ?? probes.latest[0]!;
      const holder = el('div', undefined, 'config-body');
      const every =
        probes.intervalMs > 0 ? `every ${Math.round(probes.intervalMs / 60_000)} min` : 'scheduled probing is off';
      holder.append(el('p', `Last probe of ${main.hostname}: ${when(main.at)} UTC (${every}).`, 'config-when'));
      // A probe that could not connect measured nothing: its reason, not a column of "?".
      const failed = probes.latest.filter((l) => l.result.tls.negotiated.version === null);
      for (const l of failed) {
        const box = el('div', undefined, 'config-failed');
        box.append(
          el('h3', `The probe could not connect to ${l.hostname} (${when(l.at)} UTC)`),
          el('p', l.result.errors.length ? l.result.errors.join('; ') : 'It gave no reason.'),
          el(
            'p',
            'Nothing below can be checked until a probe gets through. Check that the hostname resolves from the collector and that the server answers HTTPS on port 443.',
            'note',
          ),
        );
        holder.append(box);
      }
      // Checklist: one row per item, one column per probed hostname.
      const table = el('div');
      fillTable(
        table,
        'Checklist',
        ['', ...probes.latest.map((l) => l.hostname)],
        CHECKLIST.map((item) => ({
          cells: [item.label, ...probes.latest.map((l) => MARK[verdict(item, l.result)])],
          className: `check-${OK[verdict(item, main.result)]}`,
        })),
      );
      if (failed.length < probes.latest.length) holder.append(table);

      // Recommendations: the items the site's own hostname misses, priced by the what-if scenarios.
      const overall = whatif?.overall ?? null;
      const missing = CHECKLIST.filter((i) => verdict(i, main.result) === 'fail');
      const recs = el('div', undefined, 'config-recs');
      const unknown = CHECKLIST.filter((i) => verdict(i, main.result) === 'unknown').length;
      recs.append(
        el(
          'h3',
          missing.length
            ? 'Recommendations'
            : failed.includes(main)
              ? 'No recommendation: the last probe could not connect.'
              : unknown
                ? `Nothing to recommend among the items the probe could measure (${unknown} marked ? could not be measured).`
                : 'Nothing to recommend: every item is on.',
        ),
      );
      const ranked = missing
        .map((item) => ({
          item,
          s: item.scenario ? overall?.scenarios.find((x) => x.scenario === item.scenario) : undefined,
        }))
        .sort((a, b) => (b.s?.saving.p75 ?? -1) - (a.s?.saving.p75 ?? -1));
      for (const { item, s } of ranked) {
        const p = el('div', undefined, 'config-rec');
        const saving = !item.scenario
          ? 'Security, not speed.'
          : s
            ? s.saving.p75 > 0
              ? `Estimated saving for your visitors: ${ms(s.saving.p75)} at p75 (${ms(s.saving.p50)} at p50), ${Math.round(s.affected * 100)} % of new connections faster.`
              : `No measurable saving for your visitors in this range (${Math.round(s.affected * 100)} % of connections affected).`
            : 'No saving estimate: too little field data in this range.';
        p.append(
          el('p', item.advice),
          el('p', `nginx: ${item.fix.nginx}`, 'config-fix'),
          el('p', `Caddy: ${item.fix.caddy}`, 'config-fix'),
          el('p', saving, 'config-saving'),
        );
        if (s) {
          const d = el('details');
          d.append(el('summary', `How "${SCENARIO_LABELS[s.scenario]}" is estimated`), el('p', s.assumption));
          p.append(d);
        }
        recs.append(p);
      }
      holder.append(recs);

      // What changed when.
      const changes = el('div');
      if (probes.changes.length) {
        fillTable(
          changes,
          'What changed when (UTC)',
          ['when', 'hostname', 'what', 'before', 'after'],
          [...probes.changes].reverse().map((c) => [when(c.at), c.hostname, c.fact, c.from, c.to]),
        );
      } else {
        // Since the first probe in the range, not since the range's start: a site probed once today has no past.
        const first = Math.min(...probes.history.map((h) => h.at), main.at);
        changes.append(
          el(
            'p',
            probes.history.length <= 1
              ? 'This is the first probe: changes show here from the next one on.'
              : `No change seen since the first probe, ${when(first)} UTC.`,
          ),
        );
      }
      holder.append(changes);
      panel.table.replaceChildren(holder);

      panel.setRows(
        CHECKLIST.flatMap((item) =>
          probes.latest.map((l) => ({
            hostname: l.hostname,
            probed_at: new Date(l.at).toISOString(),
            item: item.id,
            ok: OK[verdict(item, l.result)],
          })),
        ),
      );
      return true;
    },
  };
}
