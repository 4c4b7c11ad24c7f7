/** The full matrix (`pnpm lab:accuracy`) and the reduced one (`--quick`, run inside `pnpm test`). */
import { profileByName, RTT_PROFILES, type RttProfile } from '../lab/profiles';
import { CRYPTO_SERVER_IDS } from '../lab/crypto-servers';
import type { ServerId } from '../lab/servers';
import { ALL_SERVERS, type BeaconCells, type Browser, type CryptoCells } from './run';

export interface MatrixSpec {
  profiles: RttProfile[];
  servers: ServerId[];
  modes: ('cold' | 'warm')[];
  runs: number;
  /** Browsers of the synthetic arm. */
  browsers: Browser[];
  /** The synthetic arm's HTTP/3 cells: browsers and visits per mode (QUIC connections are few per visit). */
  h3: { browsers: Browser[]; runs: number };
  /** The real-extension arm (TCP servers only; none: not run). */
  extension?: { browsers: Browser[]; runs: number; servers: ServerId[]; rebuild?: boolean };
  /** The crypto-lens servers (crypto-servers.ts): their own, smaller cells. */
  crypto?: CryptoCells;
  /** The site-beacon arm (beacon-arm.ts; none: not run). */
  beacon?: BeaconCells;
}

/**
 * Both browsers in both arms. The extension arm runs one cold and one warm visit per cell (plus the
 * warm priming visit): every one of its launches needs an opt-in (HTTP/3 has launches of its own).
 */
export const FULL_MATRIX: MatrixSpec = {
  profiles: [...RTT_PROFILES],
  servers: ALL_SERVERS,
  modes: ['cold', 'warm'],
  runs: 2,
  browsers: ['chromium', 'firefox'],
  // Chromium pools the lab's three h3 origins onto one QUIC connection per visit (Firefox: two).
  h3: { browsers: ['chromium', 'firefox'], runs: 3 },
  extension: { browsers: ['chromium', 'firefox'], runs: 1, servers: ALL_SERVERS },
  // Eight servers differing in one crypto fact each. Cold visits only (full handshakes: a resumption
  // sends no certificate and signs nothing), three per cell, and no satellite profile: ≈ 190 visits.
  crypto: {
    servers: CRYPTO_SERVER_IDS,
    profiles: ['local', 'metro', 'continent', 'intercontinental'].map(profileByName),
    modes: ['cold'],
    runs: 3,
    browsers: ['chromium', 'firefox'],
  },
  // Three visitors, each viewing every server's page twice (a full handshake, then one that may resume).
  beacon: { browsers: ['chromium', 'firefox'], servers: ALL_SERVERS, visitors: 3, rounds: 2 },
};

/**
 * One delayed profile, and the servers whose truths differ most: full TLS 1.2 at 2 RTT and its 1-RTT
 * resumption, TLS 1.3 with and without resumption, and HTTP/3 through the UDP relay. No zero-delay
 * profile: the quick run asserts fields, not timings, so it needs no CPU calibration. A small
 * real-extension arm (Chromium: the 2-RTT TLS 1.2 server, TLS 1.3 with tickets and HTTP/3, cold and
 * warm, about 40 s); Firefox's TCP cells only in the full run (its launches and idle waits cost a
 * minute more), its HTTP/3 cells here too (HTTP/3 had never been scored in Firefox before).
 */
export const QUICK_MATRIX: MatrixSpec = {
  profiles: [profileByName('continent')],
  servers: ['t12-noalpn', 't13-h2', 't13-notix', 'h3'],
  modes: ['cold', 'warm'],
  runs: 1,
  browsers: ['chromium'],
  // HTTP/3 in both browsers: 5 Chromium and 10 Firefox connections (cold 2 + warm 1 + 2 visits), and
  // 3 more from the Chromium extension arm.
  h3: { browsers: ['chromium', 'firefox'], runs: 2 },
  extension: { browsers: ['chromium'], runs: 1, servers: ['t12-noalpn', 't13-h2', 'h3'], rebuild: false },
  // Every crypto arm once per browser, cold (16 visits): the quick run scores their fields too.
  crypto: {
    servers: CRYPTO_SERVER_IDS,
    profiles: [profileByName('continent')],
    modes: ['cold'],
    runs: 1,
    browsers: ['chromium', 'firefox'],
  },
  // The beacon in both browsers: TLS 1.2 at 2 RTT without Server-Timing, TLS 1.3 with it on `b.`, and
  // HTTP/3; two visitors (two client identities: one per visitor is what is checked; the full matrix has three),
  // two views of each page per visitor.
  beacon: { browsers: ['chromium', 'firefox'], servers: ['t12-noalpn', 't13-h2', 'h3'], visitors: 2, rounds: 2 },
};
