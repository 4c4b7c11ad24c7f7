/**
 * What every dashboard browser test starts from: the dashboard as the project's global setup built it
 * (test/support/global-setup.ts, once for every file), a collector on an embedded store in `work`/data
 * serving it (not yet listening: a test may fill the store first), and Chromium.
 */
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { inject } from 'vitest';
import { buildApp } from '@tlsrum/collector';
import { loadConfig } from '@tlsrum/collector/config';
import { seedStore } from '@tlsrum/collector/test/store-template';

/** The built dashboard every browser test serves (read it, never write to it: the other files serve it too). */
export const builtDashboard = (): string => inject('dashboardDist');

export type TestCollector = Awaited<ReturnType<typeof buildApp>>;

/**
 * The built dashboard and a ready collector serving it. Load shedding is off (a busy test machine lags the
 * event loop, and a 503 there would not be the dashboard's fault), so is the per-address limit on reads (a
 * test file loads the page from one address many times a minute; the limit is the collector's own test's)
 * and so is scheduled probing (tests talk to loopback only); `env` adds or overrides settings.
 */
export async function dashboardCollector(work: string, env: Record<string, string> = {}): Promise<TestCollector> {
  const app = await buildApp(
    loadConfig({
      DATA_DIR: seedStore(join(work, 'data')),
      DASHBOARD_DIR: builtDashboard(),
      LOG_LEVEL: 'silent',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      QUERY_RATE_LIMIT_PER_MINUTE: '0',
      PROBE_INTERVAL_MS: '0',
      // Every answer fresh: records are stored and asked about again at once.
      ANSWER_CACHE_SECONDS: '0',
      ...env,
    }),
  );
  await app.storeStatus.whenReady;
  return app;
}

export function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
