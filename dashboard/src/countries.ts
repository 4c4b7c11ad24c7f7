/** Country names for ISO 3166-1 alpha-2 codes as the API answers them (`ZZ`: unknown). */
import countries from 'i18n-iso-countries';
import en from 'i18n-iso-countries/langs/en.json';

countries.registerLocale(en);

export function countryName(alpha2: string): string {
  if (alpha2 === 'ZZ') return 'Unknown';
  return countries.getName(alpha2, 'en', { select: 'alias' }) ?? alpha2;
}
