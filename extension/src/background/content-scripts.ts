/**
 * The content script is registered only while the user collects (opted in, not paused), and never for
 * excluded sites. Before opt-in no code of ours runs in any page.
 */
import { api } from '../lib/browser';
import { CONTENT_SCRIPT_ID } from '../lib/constants';
import { isCollecting, type Settings } from '../lib/settings';

export async function syncContentScript(settings: Settings, now = Date.now()): Promise<boolean> {
  const registered = await api.scripting.getRegisteredContentScripts({ ids: [CONTENT_SCRIPT_ID] });
  if (registered.length) await api.scripting.unregisterContentScripts({ ids: [CONTENT_SCRIPT_ID] });
  if (!isCollecting(settings, now)) return false;
  await api.scripting.registerContentScripts([
    {
      id: CONTENT_SCRIPT_ID,
      js: ['content.js'],
      matches: ['https://*/*'],
      ...(settings.excludedHosts.length ? { excludeMatches: settings.excludedHosts.map((h) => `https://${h}/*`) } : {}),
      // Buffered observers see the entries from before: no need to run before the page's own work.
      runAt: 'document_idle',
      allFrames: false,
      persistAcrossSessions: true,
    },
  ]);
  return true;
}
