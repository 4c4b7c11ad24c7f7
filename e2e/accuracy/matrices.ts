/** The full matrix (`pnpm lab:accuracy`) and the reduced one (`--quick`, run inside `pnpm test`). */
import { profileByName, RTT_PROFILES, type RttProfile } from '../lab/profiles';
import type { ServerId } from '../lab/servers';
import { ALL_SERVERS } from './run';

export interface MatrixSpec {
  profiles: RttProfile[];
  servers: ServerId[];
  modes: ('cold' | 'warm')[];
  runs: number;
}

export const FULL_MATRIX: MatrixSpec = { profiles: [...RTT_PROFILES], servers: ALL_SERVERS, modes: ['cold', 'warm'], runs: 2 };

/**
 * One delayed profile, and the servers whose truths differ most: full TLS 1.2 at 2 RTT and its 1-RTT
 * resumption, TLS 1.3 with and without resumption, and HTTP/3 through the UDP relay. No zero-delay
 * profile: the quick run asserts fields, not timings, so it needs no CPU calibration.
 */
export const QUICK_MATRIX: MatrixSpec = {
  profiles: [profileByName('continent')],
  servers: ['t12-noalpn', 't13-h2', 't13-notix', 'h3'],
  modes: ['cold', 'warm'],
  runs: 1,
};
