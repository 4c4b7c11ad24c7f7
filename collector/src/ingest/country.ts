/**
 * Client IP → ISO 3166-1 alpha-2 country, from an offline database loaded once into memory
 * (geo-whois-asn-country, CC0). The IP is used for this lookup only: it is never stored or logged.
 * GEOIP_OVERRIDES (lines of `CIDR COUNTRY`, `#` comments) maps addresses first — the lab maps its
 * loopback addresses 127.0.0.N to countries that way.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { Reader, type CountryResponse } from 'maxmind';

export const UNKNOWN_COUNTRY = 'ZZ';
const COUNTRY = /^[A-Z]{2}$/;

export interface CountryLookup {
  (ip: string): string;
}

interface Override {
  list: BlockList;
  country: string;
}

export function defaultGeoDbPath(): string {
  return createRequire(import.meta.url).resolve(
    '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb',
  );
}

export function parseOverrides(text: string, origin = 'GEOIP_OVERRIDES'): Override[] {
  const out: Override[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const [cidr, country, ...rest] = line.split(/\s+/);
    const [addr, bits] = (cidr ?? '').split('/');
    const family = addr && isIPv4(addr) ? 'ipv4' : addr && isIPv6(addr) ? 'ipv6' : null;
    const prefix = bits === undefined ? (family === 'ipv4' ? 32 : 128) : Number(bits);
    const max = family === 'ipv4' ? 32 : 128;
    if (
      !family ||
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > max ||
      !country ||
      !COUNTRY.test(country) ||
      rest.length
    ) {
      throw new Error(`${origin} line ${i + 1}: expected "CIDR CC" (e.g. "127.0.0.2/32 DE"), got "${raw.trim()}"`);
    }
    const list = new BlockList();
    list.addSubnet(addr!, prefix, family);
    out.push({ list, country });
  });
  return out;
}

export function createCountryLookup(options: { dbPath?: string | null; overridesPath?: string | null }): CountryLookup {
  const reader = new Reader<CountryResponse & { country_code?: string }>(
    readFileSync(options.dbPath ?? defaultGeoDbPath()),
  );
  const overrides = options.overridesPath
    ? parseOverrides(readFileSync(options.overridesPath, 'utf8'), options.overridesPath)
    : [];
  return (ip: string) => {
    // Node reports IPv4 clients of a dual-stack socket as ::ffff:a.b.c.d.
    const addr = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
    const family = isIPv4(addr) ? 'ipv4' : isIPv6(addr) ? 'ipv6' : null;
    if (!family) return UNKNOWN_COUNTRY;
    for (const o of overrides) if (o.list.check(addr, family)) return o.country;
    try {
      const code = reader.get(addr)?.country_code;
      return code && COUNTRY.test(code) ? code : UNKNOWN_COUNTRY;
    } catch {
      return UNKNOWN_COUNTRY;
    }
  };
}
