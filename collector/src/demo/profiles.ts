/**
 * The world the demo data describes: countries with their share of traffic, typical round-trip time to
 * the sites' servers and HTTP/3 adoption, and sites with their own TLS set-up. Round-trip times follow
 * the orders of magnitude of public measurements (tens of ms within Europe and North America, 100–180 ms
 * from South Asia, Africa and Oceania to servers hosted in Europe/US).
 */
export interface CountryProfile {
  code: string;
  /** relative share of records */
  weight: number;
  /** median round-trip time to the servers, ms */
  rttMs: number;
  /** share of connections on HTTP/3 where the site offers it */
  h3: number;
}

export const COUNTRIES: CountryProfile[] = [
  ['US', 18, 35, 0.35],
  ['DE', 7, 25, 0.33],
  ['GB', 5, 25, 0.33],
  ['FR', 4, 28, 0.32],
  ['IN', 8, 95, 0.25],
  ['BR', 5, 85, 0.26],
  ['JP', 4, 45, 0.38],
  ['CN', 3, 160, 0.1],
  ['CA', 3, 38, 0.34],
  ['AU', 2, 130, 0.32],
  ['RU', 2, 60, 0.2],
  ['KR', 2, 50, 0.4],
  ['IT', 2, 35, 0.3],
  ['ES', 2, 35, 0.3],
  ['NL', 1.5, 20, 0.36],
  ['SE', 1, 28, 0.38],
  ['PL', 1.5, 38, 0.3],
  ['MX', 2, 70, 0.25],
  ['ID', 3, 115, 0.22],
  ['TR', 1.5, 60, 0.24],
  ['ZA', 1, 145, 0.22],
  ['NG', 1.5, 180, 0.15],
  ['EG', 1, 110, 0.18],
  ['AR', 1, 100, 0.24],
  ['CO', 1, 85, 0.24],
  ['CL', 0.7, 95, 0.26],
  ['PH', 1.5, 125, 0.2],
  ['VN', 1.5, 105, 0.22],
  ['TH', 1, 95, 0.24],
  ['MY', 0.8, 75, 0.28],
  ['SG', 0.6, 30, 0.4],
  ['PK', 1, 135, 0.15],
  ['BD', 1, 145, 0.14],
  ['KE', 0.6, 165, 0.16],
  ['UA', 1, 50, 0.25],
  ['RO', 0.6, 40, 0.3],
  ['CZ', 0.5, 30, 0.33],
  ['CH', 0.5, 22, 0.37],
  ['AT', 0.5, 25, 0.35],
  ['BE', 0.5, 24, 0.34],
  ['PT', 0.5, 40, 0.3],
  ['IE', 0.4, 30, 0.35],
  ['NZ', 0.4, 160, 0.3],
  ['IL', 0.5, 60, 0.3],
  ['SA', 0.8, 85, 0.25],
  ['AE', 0.6, 70, 0.3],
  ['FI', 0.4, 30, 0.38],
  ['NO', 0.4, 30, 0.37],
  ['DK', 0.4, 24, 0.36],
  ['GR', 0.4, 45, 0.28],
  ['HU', 0.4, 35, 0.3],
  ['PE', 0.6, 95, 0.22],
  ['MA', 0.5, 90, 0.2],
].map(([code, weight, rttMs, h3]) => ({ code, weight, rttMs, h3 }) as CountryProfile);

export interface DemoSite {
  /** '' = a site that is not registered (stored without its hostname) */
  hostname: string;
  weight: number;
  /** share of TCP connections negotiating TLS 1.3 (the rest TLS 1.2); 0 or 1: every edge alike (a unanimous site profile) */
  tls13: number;
  /** share of connections whose responses carry the `Server-Timing: tls` header (with Timing-Allow-Origin) */
  serverTiming: number;
  /** HTTP/3 offered: multiplies the country's adoption (0 = not offered) */
  h3: number;
  /** share of connections resuming a session */
  resumption: number;
  /** From this many days before the end of the data on, the share of resumed connections is `resumption` instead of `before`. */
  resumptionChange?: { daysAgo: number; before: number };
  /** The server's certificate and key exchange: what its probe finds and Firefox observes. */
  crypto: { key: 'rsa' | 'ecdsa'; bits: number; chain: number; chainBytes: number; ocspStapled: boolean; pq: boolean };
}

export const SITES: DemoSite[] = [
  // Sends Server-Timing on its own and its Timing-Allow-Origin resources.
  {
    hostname: 'shop.example.com',
    weight: 0.25,
    tls13: 1,
    h3: 1,
    resumption: 0.45,
    serverTiming: 0.35,
    crypto: { key: 'ecdsa', bits: 256, chain: 2, chainBytes: 2_400, ocspStapled: true, pq: true },
  },
  // Some edges still on TLS 1.2: its profile is disputed, so Chromium TCP records do not know their version.
  {
    hostname: 'news.example.org',
    weight: 0.18,
    tls13: 0.8,
    h3: 1.4,
    resumption: 0.38,
    serverTiming: 0,
    crypto: { key: 'rsa', bits: 2048, chain: 3, chainBytes: 4_700, ocspStapled: false, pq: true },
  },
  // Legacy stack: TLS 1.2 only, no HTTP/3 — what the what-if view is for.
  {
    hostname: 'docs.example.net',
    weight: 0.12,
    tls13: 0,
    h3: 0,
    resumption: 0.4,
    serverTiming: 0,
    crypto: { key: 'rsa', bits: 4096, chain: 3, chainBytes: 5_600, ocspStapled: false, pq: false },
  },
  // Resumption broken by a deploy two days ago (session tickets off): since then almost every handshake is
  // full — the day window's resumption_drop alert fires against the same day a week earlier.
  {
    hostname: 'app.example.io',
    weight: 0.1,
    tls13: 1,
    h3: 0.8,
    resumption: 0.04,
    resumptionChange: { daysAgo: 2, before: 0.42 },
    serverTiming: 0,
    crypto: { key: 'ecdsa', bits: 256, chain: 2, chainBytes: 2_300, ocspStapled: true, pq: false },
  },
  {
    hostname: 'video.example.tv',
    weight: 0.07,
    tls13: 1,
    h3: 1.8,
    resumption: 0.5,
    serverTiming: 0.1,
    crypto: { key: 'ecdsa', bits: 384, chain: 2, chainBytes: 2_700, ocspStapled: true, pq: true },
  },
  // Not registered: no hostname, no profile.
  {
    hostname: '',
    weight: 0.28,
    tls13: 0.75,
    h3: 0.8,
    resumption: 0.33,
    serverTiming: 0.05,
    crypto: { key: 'rsa', bits: 2048, chain: 2, chainBytes: 3_500, ocspStapled: false, pq: false },
  },
];

export const DEMO_AGENT = { name: 'tlsrum-demo', version: '1' };

/**
 * Records per visit of a demo client (generate.ts, `visitRecords`): its connections arrive in bursts sent as one
 * batch and meet the same sites again, so the what-if's resumption and 0-RTT scenarios have repeat visits to
 * work on, as real visitors make.
 */
export const DEMO_VISIT_RECORDS = 8;
