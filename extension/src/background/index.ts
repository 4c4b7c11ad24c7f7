/**
 * Background (Chromium: service worker; Firefox: event page). Every listener is registered
 * synchronously at the top level so that the browser can wake us for it.
 */
import type { Message } from '../messages';
import { api, TARGET } from '../lib/browser';
import { isCollecting, type Settings } from '../lib/settings';
import { Controller } from './controller';
import { listenForSecurityInfo, SecurityInfoCache } from './firefox-security';

const securityInfo = TARGET === 'firefox' ? new SecurityInfoCache() : null;
const controller = new Controller(api.storage.local, securityInfo);

if (securityInfo) {
  // The blocking listener runs for every https response: keep the settings in memory rather than read
  // storage each time (pausedUntil is still compared with the clock at every call).
  let settings: Promise<Settings> | null = null;
  api.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && changes.settings) settings = null;
  });
  listenForSecurityInfo(securityInfo, async () => isCollecting(await (settings ??= controller.settings())));
}

api.runtime.onInstalled.addListener((details) => {
  void controller.sync().catch((err) => console.error('tlsrum: sync failed', err));
  if (details.reason === 'install') void api.tabs.create({ url: api.runtime.getURL('onboarding/index.html') });
});

api.runtime.onStartup.addListener(
  () => void controller.sync().catch((err) => console.error('tlsrum: sync failed', err)),
);

api.alarms.onAlarm.addListener(
  (alarm) => void controller.onAlarm(alarm.name).catch((err) => console.error('tlsrum: alarm failed', err)),
);

api.runtime.onMessage.addListener((message: Message, sender, sendResponse) => {
  if (sender.id !== api.runtime.id || !message || typeof message !== 'object') return false;
  controller.handle(message, sender).then(
    (reply) => sendResponse(reply),
    (err: Error) => sendResponse({ failed: err.message }),
  );
  return true; // the reply is asynchronous
});
