import type { NormalizedOptions } from './options';
import type { VisitResult } from './types';

export async function firefoxRun(_o: NormalizedOptions, _emit: (v: VisitResult) => void): Promise<string> {
  throw new Error('the Firefox runner is not in this version yet: use --browser chromium');
}
