/** English names by ISO 3166-1 alpha-2 code, in reading order, made at build time (scripts/country-names.ts). */
declare module 'virtual:country-names' {
  const names: Readonly<Record<string, string>>;
  export default names;
}
