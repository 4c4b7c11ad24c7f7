/**
 * The toolbar popup. Before opt-in it shows the state and a way to turn measuring on, and asks the
 * collector nothing; after, a verdict in plain words, the user's recent connections beside the field's,
 * and the queue as a table with the exact JSON one click away.
 */
import type { HandshakeRecord } from '@tlsrum/shared';
import type { FieldPercentiles, State } from '../messages';
import { ask } from '../messages';
import { api } from '../lib/browser';
import { localize, t } from '../lib/i18n';
import { ms, protocolLabel, setupLabel, versionLabel } from '../lib/labels';
import { normaliseHost } from '../lib/settings';
import { verdictOf } from '../lib/verdict';

localize();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let field: FieldPercentiles | null = null;
let tabHost: string | null = null;
const time = (epochMs: number) => new Date(epochMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

function say(text: string, error = false): void {
  $('status').textContent = text;
  $('status').className = error ? 'error' : 'done';
}

function row(cells: (string | Node)[], numeric: number[] = []): HTMLTableRowElement {
  const tr = document.createElement('tr');
  cells.forEach((c, i) => {
    const td = document.createElement('td');
    td.append(c);
    if (numeric.includes(i)) td.className = 'num';
    tr.append(td);
  });
  return tr;
}

/**
 * The website of a record. A site that is not registered is sent without its name (`site` empty): the
 * recent list shows the name marked "kept on this device"; the queue, which shows what is sent, says the
 * name is not sent.
 */
function siteCell(host: string | null, r: HandshakeRecord): Node {
  const span = document.createElement('span');
  span.textContent = r.site ?? host ?? t('nameNotSent');
  if (r.site === null) {
    const tag = document.createElement('small');
    tag.className = 'local';
    tag.textContent = t('keptLocal');
    span.append(' ', tag);
  }
  return span;
}

function render(s: State): void {
  const on = s.settings.optedIn;
  const state = !on ? 'off' : s.paused ? 'paused' : 'on';
  $('state').textContent =
    state === 'on'
      ? t('popStateOn')
      : state === 'paused'
        ? t('popStatePaused', time(s.settings.pausedUntil))
        : t('popStateOff');
  $('state').dataset.state = state;
  $<HTMLImageElement>('state-icon').src = `../icons/${state}-32.png`;
  $('off-view').hidden = on;
  $('on-view').hidden = !on;
  if (!on) return;

  $('pause').hidden = s.paused;
  $('resume').hidden = !s.paused;
  const excluded = tabHost !== null && s.settings.excludedHosts.includes(tabHost);
  $('exclude').hidden = !tabHost;
  $('exclude').textContent = tabHost ? (excluded ? t('popInclude', tabHost) : t('popExclude', tabHost)) : '';
  $('exclude').dataset.excluded = String(excluded);

  const f = field ?? { available: false, byClass: {}, scope: 'all', site: null };
  const midnight = new Date().setHours(0, 0, 0, 0);
  const v = verdictOf(
    s.recent.map((r) => r.record),
    f,
    midnight,
  );
  $('verdict').textContent =
    v.medianMs === null
      ? t('popVerdictNone')
      : v.quickerThanOutOf10 !== null
        ? t('popVerdict', Math.round(v.medianMs), v.quickerThanOutOf10)
        : t('popVerdictNoField', Math.round(v.medianMs), v.count);
  $('field-note').textContent = !field
    ? ''
    : !field.available
      ? t('popFieldNone', field.note ?? '')
      : field.scope === 'site'
        ? t('popFieldSite', field.site ?? '')
        : field.siteRefused && tabHost
          ? t('popFieldAllSiteRefused', tabHost)
          : t('popFieldAll');

  $('recent').replaceChildren(
    ...s.recent.slice(0, 10).map(({ host, record: r }) => {
      const q = f.byClass[r.handshakeClass];
      return row(
        [
          siteCell(host, r),
          setupLabel(r.handshakeClass),
          versionLabel(r.tlsVersion, r.tlsVersionSource),
          ms(r.tls),
          q ? ms(q.p50) : '—',
        ],
        [3, 4],
      );
    }),
  );

  const q = s.queue;
  $('count').textContent = String(q.records.length);
  $('queue-heading').textContent = t('popQueueHeading', q.records.length);
  $('queue-table').hidden = q.records.length === 0;
  $('queue-empty').hidden = q.records.length > 0;
  $('json').hidden = q.records.length === 0;
  $('queue-rows').replaceChildren(
    ...q.records
      .slice(0, 50)
      .map((r) =>
        row([time(r.ts), siteCell(null, r), protocolLabel(r.protocol), setupLabel(r.handshakeClass), ms(r.tls)], [4]),
      ),
  );
  $('queue').textContent = JSON.stringify(q.records, null, 1);
  $('queue-info').textContent = [
    t('popSentSoFar', q.sent),
    q.dropped ? t('popDropped', q.dropped) : '',
    q.rejected ? t('popRejected', q.rejected) : '',
    q.expired ? t('popExpired', q.expired) : '',
    q.lastError ? t('popLastError', q.lastError) : '',
    q.nextAttemptAt > Date.now() ? t('popNextAttempt', time(q.nextAttemptAt)) : '',
    s.counts.opaque + s.counts.reused ? t('popNotMeasured', s.counts.opaque, s.counts.reused) : '',
  ]
    .filter(Boolean)
    .join(' ');
}

async function run(action: () => Promise<State | void>): Promise<void> {
  try {
    render((await action()) ?? (await ask({ type: 'get-state' })));
  } catch (err) {
    say((err as Error).message, true);
  }
}

$('turn-on').addEventListener('click', () => {
  // Consent is given on the onboarding page, which says what is collected and who receives it.
  void api.tabs.create({ url: api.runtime.getURL('onboarding/index.html') });
  window.close();
});
$('turn-off').addEventListener(
  'click',
  () =>
    void run(async () => {
      const { state, deleted } = await ask({ type: 'set-opt-in', optedIn: false });
      say(t('popTurnedOff', deleted));
      return state;
    }),
);
$('pause').addEventListener(
  'click',
  () =>
    void run(async () => {
      const s = await ask({ type: 'pause', minutes: 60 });
      say(t('popPausedMsg', time(s.settings.pausedUntil)));
      return s;
    }),
);
$('resume').addEventListener(
  'click',
  () =>
    void run(async () => {
      const s = await ask({ type: 'resume' });
      say(t('popResumedMsg'));
      return s;
    }),
);
$('exclude').addEventListener('click', () => {
  const host = tabHost;
  if (!host) return;
  const exclude = $('exclude').dataset.excluded !== 'true';
  void run(async () => {
    const { state, dropped } = await ask({ type: 'set-excluded', host, excluded: exclude });
    say(exclude ? (dropped ? t('popExcluded', host, dropped) : t('popExcludedNone', host)) : t('popIncluded', host));
    return state;
  });
});
$('send').addEventListener(
  'click',
  () =>
    void run(async () => {
      const r = await ask({ type: 'flush' });
      say(r.ok ? t('popSent', r.sent) : t('popNotSent', r.error ?? t('popWillRetry')), !r.ok);
    }),
);

void (async () => {
  try {
    const [tab] = await api.tabs.query({ active: true, currentWindow: true });
    tabHost = tab?.url?.startsWith('https://') ? normaliseHost(new URL(tab.url).hostname) : null;
  } catch {
    tabHost = null;
  }
  const s = await ask({ type: 'get-state' }).catch(() => null);
  if (!s) return run(async () => undefined);
  render(s);
  // The collector is asked for field figures only once the user has agreed (the background refuses before).
  if (!s.settings.optedIn) return;
  field = await ask({ type: 'get-field', host: tabHost }).catch(() => null);
  await run(async () => undefined);
})();
