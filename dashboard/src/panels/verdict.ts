/**
 * The verdict, first on the page: one sentence and three figures a person can repeat ("TLS 1.3 connects
 * 97 ms sooner than TLS 1.2 at the 75th percentile; HTTP/3 saves 24 ms more; …"), how sure it is in plain
 * words, and the figures behind it one click away. A site's view puts what needs attention (firing alerts,
 * failed checks, a failed probe) above it. Every figure comes from the same query routes the other panels
 * read (so the small-cell rules hold as they do there); an empty store shows the three ways to start.
 */
import { CHECKLIST } from '@tlsrum/probe/checks';
import { CHECK_LABELS, PROBE_CHECK_LABELS } from '@tlsrum/shared/query';
import type { AlertsAnswer, Answer, Cell, ProbesAnswer } from '../api';
import { createPanel, type DashboardPanel, type LoadContext } from '../panel';
import { countryName } from '../countries';
import { coverageOf, evidenceSentence, recordSourceSentence, serverTimingSentence } from '../coverage';
import { int, ms, pct } from '../format';
import { fillTable } from '../table';

export interface VerdictData {
  stacks: Answer;
  modes: Answer;
  countries: Answer;
  /** By the TLS version's evidence, and by who measured the records (coverage.ts). */
  evidence: Answer;
  sources: Answer;
  /** A site's view only: its alerts and probes (null when they could not be read). */
  alerts: AlertsAnswer | null;
  probes: ProbesAnswer | null;
}

/** The figures of the sentence, each null when the data cannot say (a group missing or hidden). */
export interface Verdict {
  /** TLS 1.2 p75 connect − TLS 1.3 p75 connect, ms (positive: TLS 1.3 is sooner). */
  tls13Gain: number | null;
  /** TLS 1.3 p75 connect − h3 p75 connect, ms (positive: HTTP/3 is sooner). */
  h3Gain: number | null;
  /** Resumed + 0-RTT records ÷ records with a known handshake mode. */
  resumedShare: number | null;
  slowest: { country: string; p75: number } | null;
}

const shown = (cells: Cell[]) => cells.filter((c) => !c.suppressed);
const stackP75 = (a: Answer, stack: string) => shown(a.cells).find((c) => c.key.stack === stack)?.connect?.p75;
const round = (v: number) => Math.round(v);

export function verdictOf(d: Pick<VerdictData, 'stacks' | 'modes' | 'countries'>): Verdict {
  const t12 = stackP75(d.stacks, 'TLS 1.2');
  const t13 = stackP75(d.stacks, 'TLS 1.3');
  const h3 = stackP75(d.stacks, 'h3');
  const modes = shown(d.modes.cells).filter((c) => c.key.mode !== 'unknown');
  const total = modes.reduce((s, c) => s + (c.records ?? 0), 0);
  const resumed = modes
    .filter((c) => c.key.mode === 'resumed' || c.key.mode === '0-RTT')
    .reduce((s, c) => s + (c.records ?? 0), 0);
  // The slowest region among countries that rest on more than a few people (one person cannot make it).
  const countries = shown(d.countries.cells).filter((c) => c.key.country !== 'ZZ' && !c.fewClients && c.connect);
  const slow = countries.sort((a, b) => b.connect!.p75 - a.connect!.p75)[0];
  return {
    tls13Gain: t12 !== undefined && t13 !== undefined ? round(t12 - t13) : null,
    h3Gain: t13 !== undefined && h3 !== undefined ? round(t13 - h3) : null,
    resumedShare: total > 0 ? resumed / total : null,
    slowest: slow ? { country: slow.key.country!, p75: round(slow.connect!.p75) } : null,
  };
}

const sooner = (gain: number, what: string, than: string) =>
  gain >= 0 ? `${what} connects ${gain} ms sooner than ${than}` : `${what} connects ${-gain} ms later than ${than}`;

/** The sentence a person can repeat; '' when there is nothing to compare. */
export function verdictSentence(v: Verdict, who: string): string {
  const parts: string[] = [];
  if (v.tls13Gain !== null) parts.push(`${sooner(v.tls13Gain, 'TLS 1.3', 'TLS 1.2')} at the 75th percentile`);
  if (v.h3Gain !== null)
    parts.push(
      v.h3Gain >= 0 ? `HTTP/3 saves ${v.h3Gain} ms more` : `HTTP/3 is ${-v.h3Gain} ms slower than TLS 1.3 over TCP`,
    );
  if (v.resumedShare !== null) parts.push(`resumption works for ${pct(v.resumedShare)} of connections`);
  if (v.slowest) parts.push(`slowest region: ${countryName(v.slowest.country)}, ${v.slowest.p75} ms`);
  if (parts.length === 0) return '';
  return `For ${who}, ${parts.join('; ')}.`;
}

/** How sure: the fewest people behind a compared group, against the privacy threshold. */
function sureness(d: VerdictData): string {
  const groups = shown(d.stacks.cells).filter((c) => c.key.stack !== 'unknown');
  if (groups.length === 0) return '';
  const few = groups.filter((c) => c.fewClients).map((c) => c.key.stack!);
  const records = groups.reduce((s, c) => s + (c.records ?? 0), 0);
  const least = Math.min(...groups.map((c) => c.clients ?? 0));
  // The owner's own runs hold no people: how sure rests on how many connections the runs measured.
  if (d.stacks.ownSynthetic)
    return `How sure: ${int(records)} connections measured by your own runs (no people, so no people rule).`;
  const capped = groups.every((c) => c.clientsCapped || (c.clients ?? 0) >= 100);
  const people = capped ? 'at least 100 people' : `at least ${int(least)} people`;
  if (few.length)
    return `How sure: tentative. ${few.join(' and ')} rest${few.length === 1 ? 's' : ''} on few people, so one person's connections can move ${few.length === 1 ? 'its' : 'their'} figures (${int(records)} connections in all).`;
  return `How sure: solid. ${int(records)} connections; every protocol compared rests on ${people}.`;
}

type Attention = { text: string; href: string };

/** What needs the site owner's attention: firing alerts, items the probe found off, a probe that failed. */
function attention(d: VerdictData): Attention[] {
  const items: Attention[] = [];
  const labels = { ...CHECK_LABELS, ...PROBE_CHECK_LABELS } as Record<string, string>;
  for (const a of d.alerts?.alerts ?? []) {
    if (a.status !== 'firing') continue;
    const share = a.check.endsWith('_drop');
    const fmt = (v: number | null) => (v === null ? '?' : share ? pct(v) : ms(v));
    const when = a.window === 'probe' ? 'seen by the probe' : `last ${a.window} against a week earlier`;
    const moved =
      a.current !== null && a.baseline !== null ? `: ${fmt(a.baseline)} → ${fmt(a.current)} (${when})` : ` (${when})`;
    items.push({ text: `Alert: ${labels[a.check] ?? a.check}${moved}`, href: '#alerts' });
  }
  const p = d.probes;
  const main = p ? (p.latest.find((l) => l.hostname === p.site) ?? p.latest[0]) : undefined;
  if (main && main.result.tls.negotiated.version === null) {
    items.push({
      text: `The last probe of ${main.hostname} could not connect: ${main.result.errors[0] ?? 'no reason given'}`,
      href: '#config',
    });
  } else if (main) {
    for (const item of CHECKLIST)
      if (item.read(main.result).status === 'fail') items.push({ text: `Off: ${item.label}`, href: '#config' });
  }
  return items;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

/** No record at all in the range and no filter narrowing it: say how to start, not "no data for these filters". */
export function isEmptyStore(ctx: LoadContext, d: Pick<VerdictData, 'evidence'>): boolean {
  const narrowed = Object.entries(ctx.params).some(([k, v]) => v && k !== 'from' && k !== 'to' && k !== 'site');
  return !narrowed && d.evidence.cells.length === 0;
}

export function startSteps(site: string | null): HTMLElement {
  const box = el('div', undefined, 'start');
  box.append(
    el(
      'h3',
      site ? `No connections to ${site} recorded in this range yet.` : 'No connections recorded in this range yet.',
    ),
  );
  const ol = el('ol');
  const add = el('li');
  add.append(
    site ? 'Your site is registered. ' : '',
    Object.assign(el('a', site ? 'Add another site' : 'Add your site'), { href: './add-site.html' }),
    site
      ? ' if you have more than one.'
      : ': prove you control it and get a read token, the key to your site’s own figures.',
  );
  const measure = el('li');
  measure.append(
    'Start measuring: put the beacon tag that the ',
    Object.assign(el('a', 'Add your site'), { href: './add-site.html' }),
    ' page gives you on your pages, or install the tlsrum browser extension (see “If you use the browser extension” in the README).',
  );
  const demo = el('li');
  demo.append(
    'Just looking? Run ',
    el('code', 'pnpm demo'),
    ' to start a collector filled with 30 days of made-up data.',
  );
  ol.append(add, measure, demo);
  box.append(ol);
  return box;
}

export function verdictPanel(parent: HTMLElement): DashboardPanel<VerdictData> {
  const panel = createPanel(parent, {
    id: 'verdict',
    title: 'The answer',
    description: '',
    charts: [],
    table: { className: 'verdict-body', below: true },
    wide: true,
  });
  panel.section.classList.add('verdict');
  return {
    panel,
    load: async (ctx) => {
      const site = await ctx.site;
      const [stacks, modes, countries, evidence, sources, alerts, probes] = await Promise.all([
        ctx.query('compare', { dimensions: 'stack' }),
        ctx.query('compare', { dimensions: 'stack,mode' }),
        ctx.query('map', {}),
        ctx.query('compare', { dimensions: 'versionEvidence' }),
        ctx.query('compare', { dimensions: 'source' }),
        site ? ctx.alerts().catch(() => null) : null,
        site ? ctx.probes(site).catch(() => null) : null,
      ]);
      return { stacks, modes, countries, evidence, sources, alerts, probes };
    },
    async render(d, ctx) {
      const site = await ctx.site;
      const body = el('div');
      if (site) {
        const items = attention(d);
        const box = el('div', undefined, `attention ${items.length ? 'warn' : 'fine'}`);
        box.append(el('h3', items.length ? `Needs attention (${items.length})` : 'Nothing needs attention'));
        if (items.length) {
          const ul = el('ul');
          for (const i of items) {
            const li = el('li');
            li.append(Object.assign(el('a', i.text), { href: i.href }));
            ul.append(li);
          }
          box.append(ul);
        } else
          box.append(
            el(
              'p',
              d.probes?.latest.length
                ? 'No alert is firing, and the last probe found every checked item on.'
                : 'No alert is firing. The site has not been probed yet, so its TLS set-up is not checked.',
            ),
          );
        body.append(box);
      }
      const empty = isEmptyStore(ctx, d);
      panel.section.querySelector('h2')!.textContent = empty ? 'Getting started' : 'The answer';
      if (empty) {
        body.append(startSteps(site));
        panel.table.replaceChildren(body);
        return true;
      }
      const v = verdictOf(d);
      const country = ctx.filters.country;
      // The site's own synthetic runs (its token, source synthetic) hold no visitor: the sentence says whose they are.
      const whose = d.evidence.ownSynthetic
        ? `your own synthetic runs of ${site}`
        : site
          ? `${site}'s visitors`
          : 'visitors of every site together';
      const who = `${whose}${country ? ` in ${countryName(country)}` : ''}`;
      // With one country chosen there is no slowest region to name.
      if (country) v.slowest = null;
      const sentence = verdictSentence(v, who);
      if (!sentence) {
        panel.table.replaceChildren(body);
        return site !== null;
      }
      body.append(el('p', sentence, 'sentence'));
      const figures = el('div', undefined, 'figures');
      const figure = (value: string, what: string) => {
        const f = el('div', undefined, 'figure');
        f.append(el('strong', value), el('span', what));
        figures.append(f);
      };
      const gain = (g: number | null) => (g === null ? '—' : g >= 0 ? `${g} ms sooner` : `${-g} ms later`);
      figure(gain(v.tls13Gain), 'TLS 1.3 against TLS 1.2, time to set up a connection (p75)');
      figure(gain(v.h3Gain), 'HTTP/3 against TLS 1.3 over TCP (p75)');
      figure(v.resumedShare === null ? '—' : pct(v.resumedShare), 'of connections resumed an earlier session');
      body.append(figures);
      const sure = sureness(d);
      const coverage = coverageOf(d.evidence, d.sources);
      const evidence = [
        sure,
        evidenceSentence(coverage),
        recordSourceSentence(coverage),
        site ? serverTimingSentence(coverage, site) : '',
      ];
      body.append(el('p', evidence.filter(Boolean).join(' '), 'evidence'));

      // The figures behind the sentence, one click away.
      const details = el('details');
      details.append(el('summary', 'The figures behind this answer'));
      const table = el('div');
      fillTable(
        table,
        `${ctx.rangeLabel}, p75 of the connection set-up (TCP + TLS; QUIC for HTTP/3)`,
        ['protocol', 'connections', 'p75 set-up', 'p75 TLS'],
        shown(d.stacks.cells)
          .filter((c) => c.key.stack !== 'unknown')
          .map((c) => [c.key.stack!, int(c.records), ms(c.connect?.p75), ms(c.tls?.p75)]),
      );
      const more = el('p', undefined, 'note');
      more.append(
        'Resumed: resumed and 0-RTT connections among those whose handshake mode is known. Slowest region: the country with the highest p75 set-up among those resting on more than a few people. Every group: ',
        Object.assign(el('a', 'the comparison'), { href: '#compare' }),
        ' and ',
        Object.assign(el('a', 'the map'), { href: '#map' }),
        '.',
      );
      details.append(table, more);
      body.append(details);
      panel.table.replaceChildren(body);
      panel.setRows([
        {
          tls13_vs_tls12_p75_connect_saving_ms: v.tls13Gain ?? undefined,
          h3_vs_tls13_p75_connect_saving_ms: v.h3Gain ?? undefined,
          resumed_share: v.resumedShare ?? undefined,
          slowest_country: v.slowest?.country,
          slowest_country_p75_connect_ms: v.slowest?.p75,
        },
      ]);
      return true;
    },
  };
}
