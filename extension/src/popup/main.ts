import type { FieldPercentiles, State } from '../messages';
import { ask } from '../messages';
import { api } from '../lib/browser';
import { normaliseHost } from '../lib/settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $('status');
let field: FieldPercentiles = { available: false, byClass: {} };
let tabHost: string | null = null;

function render(s: State): void {
  $<HTMLInputElement>('on').checked = s.settings.optedIn;
  $('pause').hidden = !s.settings.optedIn || s.paused;
  $('resume').hidden = !s.paused;
  $('paused').textContent = s.paused ? `paused until ${new Date(s.settings.pausedUntil).toLocaleTimeString()}` : '';
  const excluded = tabHost !== null && s.settings.excludedHosts.includes(tabHost);
  $('exclude').hidden = !tabHost || !s.settings.optedIn;
  $('exclude').textContent = excluded ? `Include ${tabHost} again` : `Exclude ${tabHost ?? 'this site'}`;
  $('exclude').dataset.excluded = String(excluded);

  const rows = s.recent.slice(0, 15).map(({ host, record: r }) => {
    const f = field.byClass[r.handshakeClass];
    const tr = document.createElement('tr');
    for (const text of [host, r.protocol, r.tlsVersion ?? '?', r.handshakeClass, String(r.tls), f ? `${f.p50} / ${f.p75}` : '—']) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  });
  $('recent').replaceChildren(...rows);
  $('field-note').textContent = field.available ? 'Field: p50 / p75 of the TLS phase (ms) for the same class, from the collector.' : `Field percentiles unavailable${field.note ? ` (${field.note})` : ''}.`;

  const q = s.queue;
  $('count').textContent = String(q.records.length);
  const info = [
    `${q.sent} sent`,
    q.dropped ? `${q.dropped} dropped (queue full)` : '',
    q.rejected ? `${q.rejected} refused by the collector` : '',
    q.expired ? `${q.expired} expired` : '',
    q.lastError ? `last error: ${q.lastError}` : '',
    q.nextAttemptAt > Date.now() ? `next attempt ${new Date(q.nextAttemptAt).toLocaleTimeString()}` : '',
    `not measured: ${s.counts.opaque} cross-origin without Timing-Allow-Origin, ${s.counts.reused} reused connections`,
  ].filter(Boolean);
  $('queue-info').textContent = info.join(' · ');
  $('queue').textContent = JSON.stringify(q.records, null, 1);
}

async function run(action: () => Promise<State | void>): Promise<void> {
  try {
    const s = await action();
    render(s ?? (await ask({ type: 'get-state' })));
  } catch (err) {
    status.textContent = (err as Error).message;
    status.className = 'error';
  }
}

$('on').addEventListener('change', (e) => {
  const on = (e.target as HTMLInputElement).checked;
  if (on) {
    // Consent is given on the onboarding page, which says what is collected.
    void api.tabs.create({ url: api.runtime.getURL('onboarding/index.html') });
    window.close();
    return;
  }
  void run(() => ask({ type: 'set-opt-in', optedIn: false }));
});
$('pause').addEventListener('click', () => void run(() => ask({ type: 'pause', minutes: 60 })));
$('resume').addEventListener('click', () => void run(() => ask({ type: 'resume' })));
$('exclude').addEventListener('click', () => {
  if (!tabHost) return;
  void run(() => ask({ type: 'set-excluded', host: tabHost!, excluded: $('exclude').dataset.excluded !== 'true' }));
});
$('send').addEventListener('click', () =>
  void run(async () => {
    const r = await ask({ type: 'flush' });
    status.textContent = r.ok ? `Sent ${r.sent}.` : `Not sent: ${r.error ?? 'will retry'}`;
  }),
);

void (async () => {
  try {
    const [tab] = await api.tabs.query({ active: true, currentWindow: true });
    tabHost = tab?.url?.startsWith('https://') ? normaliseHost(new URL(tab.url).hostname) : null;
  } catch {
    tabHost = null;
  }
  await run(async () => undefined);
  field = await ask({ type: 'get-field' }).catch(() => field);
  await run(async () => undefined);
})();
