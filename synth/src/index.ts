/**
 * The synthetic runner: visits URLs with a real browser, cold or warm, N times, and returns per visit
 * the handshake records (`source: 'synthetic'`) and what the browser said about each connection
 * (local only). The CLI (cli.ts, `pnpm synth`) and the accuracy harness both call `runSynthetic`.
 */
import { chromiumSession } from './chromium';
import { observeChromiumVisit } from './observe-chromium';
import { normalizeOptions } from './options';
import { majorOf, osOfPlatform, type RecordEnv } from './records';

export { majorOf } from './records';
import type { SyntheticOptions, SyntheticResult, VisitResult } from './types';

export type * from './types';
export { BrowserMissingError, SynthOptionsError, spkiHashOfPem } from './options';

export async function runSynthetic(options: SyntheticOptions): Promise<SyntheticResult> {
  const o = normalizeOptions(options);
  const total = o.urls.length * (o.runs + (o.mode === 'warm' ? 1 : 0));
  const visits: VisitResult[] = [];
  let version = '';
  let done = 0;
  let visited = 0;
  const progress = (v: VisitResult) => {
    done++;
    options.onVisit?.(v, done, total);
  };
  const visitEnded = (url: string, failed: boolean) =>
    options.onProgress?.(++visited, total, { host: new URL(url).hostname, failed });

  if (o.browser === 'chromium') {
    for (const url of o.urls) {
      let env: RecordEnv | null = null;
      const session = await chromiumSession(o, url, (raw) => visitEnded(raw.url, Boolean(raw.error)));
      version = session.version;
      env ??= {
        browser: 'chromium',
        browserMajor: majorOf(session.version),
        os: osOfPlatform(),
        clientToken: o.clientToken,
      };
      for (const raw of session.visits) {
        const v = observeChromiumVisit(raw, session.sockets, o.mode, env);
        visits.push(v);
        progress(v);
      }
    }
  } else {
    const { firefoxRun } = await import('./firefox');
    version = await firefoxRun(o, (v) => {
      visitEnded(v.url, !v.ok);
      visits.push(v);
      progress(v);
    });
  }

  return {
    browser: { name: o.browser, version, major: majorOf(version) },
    visits,
    records: visits.flatMap((v) => v.records),
    failedVisits: visits.filter((v) => !v.ok).length,
  };
}
