/** The full matrix (`pnpm lab:accuracy`) and the reduced one (`--quick`, run inside `pnpm test`). */
import { profileByName, RTT_PROFILES, type RttProfile } from '../lab/profiles';
import type { ServerId } from '../lab/servers';
import { ALL_SERVERS, type Browser } from './run';

export interface MatrixSpec {
  profiles: RttProfile[];
  servers: ServerId[];
  modes: ('cold' | 'warm')[];
  runs: number;
  /** Browsers of the synthetic arm. */
  browsers: Browser[];
  /** The real-extension arm (TCP servers only; none: not run). */
  extension?: { browsers: Browser[]; runs: number; servers: ServerId[]; rebuild?: boolean };
}

const TCP_SERVERS = ALL_SERVERS.filter((s) => s !== 'h3');

/**
 * Both browsers in both arms. The extension arm runs one cold and one warm visit per cell (plus the
 * warm priming visit): every one of its launches needs an opt-in, and it has no HTTP/3 (see the report).
 */
export const FULL_MATRIX: MatrixSpec = {
  profiles: [...RTT_PROFILES],
  servers: ALL_SERVERS,
  modes: ['cold', 'warm'],
  runs: 2,
  browsers: ['chromium', 'firefox'],
  extension: { browsers: ['chromium', 'firefox'], runs: 1, servers: TCP_SERVERS },
};

/**
 * One delayed profile, and the servers whose truths differ most: full TLS 1.2 at 2 RTT and its 1-RTT
 * resumption, TLS 1.3 with and without resumption, and HTTP/3 through the UDP relay. No zero-delay
 * profile: the quick run asserts fields, not timings, so it needs no CPU calibration. A small
 * real-extension arm (Chromium: the 2-RTT TLS 1.2 server and TLS 1.3 with tickets, cold and warm,
 * about 20 s); Firefox only in the full run (its launches and idle waits cost a minute more).
 */
export const QUICK_MATRIX: MatrixSpec = {
  profiles: [profileByName('continent')],
  servers: ['t12-noalpn', 't13-h2', 't13-notix', 'h3'],
  modes: ['cold', 'warm'],
  runs: 1,
  browsers: ['chromium'],
  extension: { browsers: ['chromium'], runs: 1, servers: ['t12-noalpn', 't13-h2'], rebuild: false },
};
