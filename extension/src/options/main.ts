import type { State } from '../messages';
import { ask } from '../messages';
import { api } from '../lib/browser';
import { localize, t } from '../lib/i18n';
import { normaliseCollectorUrl, normaliseHost } from '../lib/settings';
import { renderAbout } from '../ui/about';

localize();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const show = (text: string, error = false) => {
  $('status').textContent = text;
  $('status').className = error ? 'error' : 'done';
};
const when = (epochMs: number) => new Date(epochMs).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });

function render(s: State): void {
  const state = !s.settings.optedIn ? 'off' : s.paused ? 'paused' : 'on';
  $<HTMLImageElement>('state-icon').src = `../icons/${state}-48.png`;
  $('measuring').textContent =
    state === 'off'
      ? t('opStateOff')
      : state === 'paused'
        ? t('opStatePaused', when(s.settings.pausedUntil))
        : t('opStateOn', s.settings.consent ? when(s.settings.consent.at) : '—', s.settings.collectorUrl);
  $('turn-on').hidden = s.settings.optedIn;
  $('turn-off').hidden = !s.settings.optedIn;
  $('resume').hidden = !s.paused;
  const input = $<HTMLInputElement>('collector');
  if (document.activeElement !== input) input.value = s.settings.collectorUrl;
  $('excluded-empty').hidden = s.settings.excludedHosts.length > 0;
  $('excluded').replaceChildren(
    ...s.settings.excludedHosts.map((host) => {
      const li = document.createElement('li');
      const name = document.createElement('span');
      name.textContent = host;
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = t('opRemove');
      button.addEventListener('click', async () => {
        const { state: next } = await ask({ type: 'set-excluded', host, excluded: false });
        render(next);
        show(t('popIncluded', host));
      });
      li.append(name, button);
      return li;
    }),
  );
}

/** Asks for the host permission of a collector the manifest does not cover (plain http beyond loopback), within the click. */
async function mayReach(url: string): Promise<boolean> {
  // Match patterns without a port cover every port; Firefox's permissions.contains answers false
  // for a pattern with a port even when the portless one is granted.
  const { protocol, hostname } = new URL(url);
  const origins = [`${protocol}//${hostname}/*`];
  return (await api.permissions.contains({ origins })) || (await api.permissions.request({ origins }));
}

$('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    const url = normaliseCollectorUrl($<HTMLInputElement>('collector').value);
    if (!(await mayReach(url))) return show(t('opNeedPermission'), true);
    render(await ask({ type: 'set-collector', url }));
    show(t('opSaved', url));
  } catch (err) {
    show((err as Error).message, true);
  }
});

$('test').addEventListener('click', async () => {
  const about = $('about');
  try {
    const url = normaliseCollectorUrl($<HTMLInputElement>('collector').value);
    if (!(await mayReach(url))) return show(t('opNeedPermission'), true);
    about.className = 'about muted';
    about.textContent = t('opTesting', url);
    const reply = await ask({ type: 'get-about', url });
    renderAbout(about, reply);
    if (reply.ok)
      about.prepend(
        Object.assign(document.createElement('p'), { className: 'done', textContent: t('opConnected', reply.url) }),
      );
  } catch (err) {
    about.className = 'about error';
    about.textContent = (err as Error).message;
  }
});

$('exclude-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const typed = $<HTMLInputElement>('exclude-host').value;
  // A pasted address is accepted: only its hostname is kept.
  let candidate = typed.trim();
  try {
    if (/^https?:\/\//i.test(candidate)) candidate = new URL(candidate).hostname;
  } catch {
    /* judged below */
  }
  const host = normaliseHost(candidate);
  if (!host) return show(t('opNotHost', typed), true);
  const { state, dropped } = await ask({ type: 'set-excluded', host, excluded: true });
  $<HTMLInputElement>('exclude-host').value = '';
  render(state);
  show(dropped ? t('popExcluded', host, dropped) : t('popExcludedNone', host));
});

$('turn-on').addEventListener(
  'click',
  () => void api.tabs.create({ url: api.runtime.getURL('onboarding/index.html') }),
);
$('resume').addEventListener('click', async () => {
  render(await ask({ type: 'resume' }));
  show(t('popResumedMsg'));
});
$('turn-off').addEventListener('click', async () => {
  const { state, deleted } = await ask({ type: 'set-opt-in', optedIn: false });
  render(state);
  show(t('popTurnedOff', deleted));
});

void ask({ type: 'get-state' }).then(render, (err: Error) => show(err.message, true));
