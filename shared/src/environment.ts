/**
 * Browser family, major version and OS of a client, as the record schema names them: from the
 * navigator (the extension) or from the request's User-Agent and Sec-CH-UA headers (the collector, for
 * the site's beacon).
 */
import type { Browser, Os } from './constants';

export interface UaData {
  brands?: { brand: string; version: string }[];
  platform?: string;
}

export interface Environment {
  browser: Browser;
  browserMajor: number;
  os: Os;
}

export function detectEnvironment(userAgent: string, uaData?: UaData | null): Environment {
  const major = (re: RegExp) => Math.min(999, Number(re.exec(userAgent)?.[1] ?? 0));
  let browser: Browser = 'other';
  let browserMajor = 0;
  const brands = uaData?.brands ?? [];
  const brand = (name: string) => brands.find((b) => b.brand === name);
  if (/Firefox\/\d+/.test(userAgent)) {
    browser = 'firefox';
    browserMajor = major(/Firefox\/(\d+)/);
  } else if (/Edg\/\d+/.test(userAgent) || brand('Microsoft Edge')) {
    browser = 'edge';
    browserMajor = major(/Edg\/(\d+)/);
  } else if (brand('Google Chrome')) {
    browser = 'chrome';
    browserMajor = Number(brand('Google Chrome')!.version) || major(/Chrome\/(\d+)/);
  } else if (/Chrome\/\d+/.test(userAgent)) {
    // Chromium builds (Debian's included) report "Chrome/N" without the Google Chrome brand.
    browser = brands.length ? 'chromium' : 'chrome';
    browserMajor = major(/Chrome\/(\d+)/);
  } else if (/Version\/\d+.*Safari\//.test(userAgent)) {
    browser = 'safari';
    browserMajor = major(/Version\/(\d+)/);
  }
  return { browser, browserMajor, os: detectOs(userAgent, uaData?.platform) };
}

function detectOs(ua: string, platform?: string): Os {
  const p = (platform ?? '').toLowerCase();
  if (p === 'windows' || /Windows NT/.test(ua)) return 'windows';
  if (p === 'android' || /Android/.test(ua)) return 'android';
  if (p === 'chrome os' || p === 'chromeos' || /CrOS/.test(ua)) return 'chromeos';
  if (/iPhone|iPad|iPod/.test(ua)) return 'ios';
  if (p === 'macos' || /Mac OS X|Macintosh/.test(ua)) return 'macos';
  if (p === 'linux' || /Linux|X11/.test(ua)) return 'linux';
  return 'other';
}
