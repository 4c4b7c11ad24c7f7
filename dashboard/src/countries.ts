/**
 * Country names for ISO 3166-1 alpha-2 codes as the API answers them (`ZZ`: unknown), from the browser's
 * own region names (Intl.DisplayNames): no name table in the bundle.
 */
let names: Intl.DisplayNames | null = null;

/**
 * The browser's region names, made on first use: making them loads the browser's name data (40–70 ms on a
 * slow machine), which must not stand between the page's start and its first queries. main.ts makes them
 * once the queries are on their way, while the page waits for the answers.
 */
export function prepareCountryNames(): Intl.DisplayNames {
  return (names ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' }));
}

export function countryName(alpha2: string): string {
  if (alpha2 === 'ZZ') return 'Unknown';
  try {
    return prepareCountryNames().of(alpha2) ?? alpha2;
  } catch {
    return alpha2; // not a well-formed region code
  }
}
