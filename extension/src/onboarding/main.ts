import { ask } from '../messages';
import { api } from '../lib/browser';

const status = document.getElementById('status')!;
const show = (text: string, error = false) => {
  status.textContent = text;
  status.className = error ? 'error' : 'muted';
};

void ask({ type: 'get-state' }).then((s) => {
  document.getElementById('collector')!.textContent = s.settings.collectorUrl;
  if (s.settings.optedIn) show('Measuring is on.');
});

document.getElementById('agree')!.addEventListener('click', async () => {
  try {
    // Firefox (MV3) lets the user withhold host permissions at install: ask for the https pages we
    // measure now, within the click (a user gesture), before opting in.
    const origins = ['https://*/*'];
    if (!(await api.permissions.contains({ origins })) && !(await api.permissions.request({ origins }))) {
      show('Without access to https pages nothing can be measured.', true);
      return;
    }
    const s = await ask({ type: 'set-opt-in', optedIn: true });
    show(s.settings.optedIn ? 'Thank you. Measuring is on; the toolbar button shows what is collected.' : 'Could not turn measuring on.');
  } catch (err) {
    show(`Could not turn measuring on: ${(err as Error).message}`, true);
  }
});

document.getElementById('decline')!.addEventListener('click', async () => {
  await ask({ type: 'set-opt-in', optedIn: false }).catch(() => undefined);
  show('Nothing will be measured. You can change your mind from the toolbar button.');
});
