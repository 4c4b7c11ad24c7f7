/**
 * The toolbar and store icons, rendered at build time from one SVG source (src/icons/icon.svg) with
 * resvg: one PNG per state and size, `icons/<state>-<size>.png`. The state's colour replaces `#STATE`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { ICON_SIZES, ICON_STATES, type IconState } from '../src/lib/icon-paths';

/** Each state's colour; the popup and onboarding say the same in words. */
const COLOURS: Record<IconState, string> = { on: '#1b7f3b', paused: '#a35f00', off: '#6b7280' };

export function renderIcons(srcDir: string, outDir: string): void {
  const svg = readFileSync(join(srcDir, 'icons/icon.svg'), 'utf8');
  mkdirSync(join(outDir, 'icons'), { recursive: true });
  for (const state of ICON_STATES) {
    const coloured = svg.replaceAll('#STATE', COLOURS[state]);
    for (const size of ICON_SIZES) {
      const png = new Resvg(coloured, { fitTo: { mode: 'width', value: size } }).render().asPng();
      writeFileSync(join(outDir, 'icons', `${state}-${size}.png`), png);
    }
  }
}
