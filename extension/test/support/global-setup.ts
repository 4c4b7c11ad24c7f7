/** Builds the extension once before any test file runs (the build takes about a second). */
import { buildAll } from '../../scripts/build';

export default async function setup(): Promise<void> {
  await buildAll();
}
