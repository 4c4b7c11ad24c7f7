/**
 * Country names for ISO 3166-1 alpha-2 codes as the API answers them (`ZZ`: unknown), from the browser's
 * own region names (Intl.DisplayNames): no name table in the bundle.
 */
const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

export function countryName(alpha2: string): string {
  if (alpha2 === 'ZZ') return 'Unknown';
  try {
    return names.of(alpha2) ?? alpha2;
  } catch {
    return alpha2; // not a well-formed region code
  }
}
