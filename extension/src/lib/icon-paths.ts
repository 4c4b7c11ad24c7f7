/** Icon files the build renders (scripts/icons.ts) and the manifest and background reference. */
export const ICON_SIZES = [16, 32, 48, 128] as const;
export const ICON_STATES = ['on', 'paused', 'off'] as const;
export type IconState = (typeof ICON_STATES)[number];

/** `{16: 'icons/on-16.png', …}` — the shape of manifest `icons` and `action.setIcon({path})`. */
export function iconPaths(state: IconState): Record<string, string> {
  return Object.fromEntries(ICON_SIZES.map((s) => [String(s), `icons/${state}-${s}.png`]));
}
