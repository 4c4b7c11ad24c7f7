/**
 * English country names for every ISO 3166-1 alpha-2 code a region name exists for (the API answers any
 * two capital letters; `ZZ` is its "unknown"), made once at build time from Node's own region names
 * (Intl.DisplayNames, the CLDR data browsers carry too), in the order an English reader sorts them
 * (Intl.Collator). The page reads a table of about 5 kB: it never loads the browser's locale data, whose first
 * use costs 40–70 ms of a slow machine's main thread while the page's answers arrive. The page imports it as
 * `virtual:country-names` (countryNamesModule, in the build's and the tests' Vite plugins).
 */
import type { Plugin } from 'vite';

const MODULE = 'virtual:country-names';

export function countryNames(): Record<string, string> {
  const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const names: Record<string, string> = {};
  const letters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
  for (const a of letters)
    for (const b of letters) {
      const code = a + b;
      // ZZ is the API's unknown country; a code with no name stays a code (countries.ts).
      const name = code === 'ZZ' ? 'Unknown' : regions.of(code);
      if (name && name !== code) names[code] = name;
    }
  // In reading order: an object keeps its (non-numeric) keys in the order they were added.
  const collator = new Intl.Collator('en');
  return Object.fromEntries(Object.entries(names).sort(([, a], [, b]) => collator.compare(a, b)));
}

/** The names as the module `virtual:country-names`: `export default { AF: 'Afghanistan', … }`, in reading order. */
export function countryNamesModule(): Plugin {
  const id = `\0${MODULE}`;
  return {
    name: 'tlsrum-country-names',
    resolveId: (source) => (source === MODULE ? id : undefined),
    load: (source) => (source === id ? `export default ${JSON.stringify(countryNames())};` : undefined),
  };
}
