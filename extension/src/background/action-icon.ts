/** The toolbar button shows the state: green measuring, amber paused, grey off — and says it in its tooltip. */
import { api } from '../lib/browser';
import { t } from '../lib/i18n';
import { iconPaths, type IconState } from '../lib/icon-paths';
import { isPaused, type Settings } from '../lib/settings';

export function iconStateOf(s: Settings, now = Date.now()): IconState {
  return !s.optedIn ? 'off' : isPaused(s, now) ? 'paused' : 'on';
}

export async function showState(s: Settings): Promise<void> {
  const state = iconStateOf(s);
  await api.action.setIcon({ path: iconPaths(state) });
  await api.action.setTitle({ title: t(state === 'on' ? 'titleOn' : state === 'paused' ? 'titlePaused' : 'titleOff') });
}
