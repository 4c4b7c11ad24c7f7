import type { State } from '../messages';
import { ask } from '../messages';
import { api } from '../lib/browser';
import { normaliseCollectorUrl } from '../lib/settings';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = $('status');
const show = (text: string, error = false) => {
  status.textContent = text;
  status.className = error ? 'error' : 'muted';
};

function render(s: State): void {
  $<HTMLInputElement>('collector').value = s.settings.collectorUrl;
  $('excluded').replaceChildren(
    ...s.settings.excludedHosts.map((host) => {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.textContent = 'include again';
      button.addEventListener('click', () => void ask({ type: 'set-excluded', host, excluded: false }).then(render));
      li.append(`${host} `, button);
      return li;
    }),
  );
}

$('form').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    const url = normaliseCollectorUrl($<HTMLInputElement>('collector').value);
    // Uploads go from the background without CORS: they need a host permission for the collector.
    // https://* and loopback http are in the manifest; another http collector is asked for here.
    // Match patterns without a port cover every port; Firefox's permissions.contains answers false
    // for a pattern with a port even when the portless one is granted.
    const { protocol, hostname } = new URL(url);
    const origins = [`${protocol}//${hostname}/*`];
    if (!(await api.permissions.contains({ origins })) && !(await api.permissions.request({ origins }))) {
      show('Without permission to reach this collector nothing can be sent to it.', true);
      return;
    }
    render(await ask({ type: 'set-collector', url }));
    show(`Saved: ${url}`);
  } catch (err) {
    show((err as Error).message, true);
  }
});

void ask({ type: 'get-state' }).then(render, (err: Error) => show(err.message, true));
