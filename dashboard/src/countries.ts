/**
 * Country names for ISO 3166-1 alpha-2 codes as the API answers them (`ZZ`: unknown), and their reading
 * order: English names made at build time from the region names browsers carry (scripts/country-names.ts),
 * so the page never loads the browser's locale data, which costs tens of milliseconds of its main thread.
 */
import NAMES from 'virtual:country-names';

const RANK = new Map(Object.keys(NAMES).map((code, i) => [code, i]));

export function countryName(alpha2: string): string {
  return Object.hasOwn(NAMES, alpha2) ? NAMES[alpha2]! : alpha2;
}

/** Sorts codes by their names as an English reader would; codes without a name last, by code. */
export function compareCountries(x: string, y: string): number {
  const [a, b] = [RANK.get(x) ?? RANK.size, RANK.get(y) ?? RANK.size];
  return a - b || (x < y ? -1 : x > y ? 1 : 0);
}
