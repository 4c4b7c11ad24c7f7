import { ask } from '../messages';
import { api, TARGET } from '../lib/browser';
import { localize, t } from '../lib/i18n';
import { renderAbout } from '../ui/about';

localize();
const $ = (id: string) => document.getElementById(id)!;
const show = (text: string, error = false) => {
  $('status').textContent = text;
  $('status').className = error ? 'error' : 'done';
};
// This browser's way of pinning first.
if (TARGET === 'firefox') $('pin').prepend($('pin-firefox'));

// Nothing here contacts the collector on its own: who runs it is asked only when the user clicks.
void ask({ type: 'get-state' }).then((s) => {
  $('collector').textContent = t('obCollector', s.settings.collectorUrl);
  if (s.settings.optedIn) show(t('obAlreadyOn'));
});

$('ask-who').addEventListener('click', async () => {
  $('about').className = 'about muted';
  $('about').textContent = t('obAsking', (await ask({ type: 'get-state' })).settings.collectorUrl);
  renderAbout($('about'), await ask({ type: 'get-about' }));
});

$('agree').addEventListener('click', async () => {
  try {
    // Firefox (MV3) lets the user withhold host permissions at install: ask for the https pages we
    // measure now, within the click (a user gesture), before opting in.
    const origins = ['https://*/*'];
    if (!(await api.permissions.contains({ origins })) && !(await api.permissions.request({ origins }))) {
      show(t('obNeedAccess'), true);
      return;
    }
    const { state } = await ask({ type: 'set-opt-in', optedIn: true });
    show(state.settings.optedIn ? t('obAgreed') : t('obFailed', '?'), !state.settings.optedIn);
  } catch (err) {
    show(t('obFailed', (err as Error).message), true);
  }
});

$('decline').addEventListener('click', async () => {
  await ask({ type: 'set-opt-in', optedIn: false }).catch(() => undefined);
  show(t('obDeclined'));
});
