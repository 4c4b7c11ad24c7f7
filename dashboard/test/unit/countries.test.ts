import { describe, expect, it } from 'vitest';
import codes from 'i18n-iso-countries/codes.json';
import { countryName } from '../../src/countries';

describe('country names', () => {
  it('names every ISO 3166-1 country in English, without asking the browser', () => {
    for (const [alpha2] of codes as string[][]) expect(countryName(alpha2!), alpha2).not.toBe(alpha2);
    expect(countryName('DE')).toBe('Germany');
    expect(countryName('JP')).toBe('Japan');
  });

  it('names the codes outside ISO 3166-1 that have a region name, the unknown country, and keeps any other code', () => {
    expect(countryName('XK')).toBe('Kosovo');
    expect(countryName('EU')).toBe('European Union');
    expect(countryName('ZZ')).toBe('Unknown');
    expect(countryName('QQ')).toBe('QQ');
    expect(countryName('constructor')).toBe('constructor');
  });
});
