/**
 * Named RTT profiles standing for regions. Each profile's delaying proxy binds its upstream sockets to
 * its own loopback address, so a collector reached through it sees 127.0.0.N and its GEOIP_OVERRIDES
 * file (written by the lab) maps that address to the profile's country.
 */
export interface RttProfile {
  name: string;
  /** Injected round-trip time, ms (half of it on each direction). */
  rttMs: number;
  /** Loopback address the proxy's outgoing connections leave from. */
  sourceAddress: string;
  /** ISO country the collector should derive from sourceAddress. */
  country: string;
}

export const RTT_PROFILES: readonly RttProfile[] = [
  // Zero delay: measures what the handshake costs in CPU on this machine, used to calibrate the others.
  { name: 'local', rttMs: 0, sourceAddress: '127.0.0.2', country: 'CH' },
  { name: 'metro', rttMs: 20, sourceAddress: '127.0.0.3', country: 'DE' },
  { name: 'continent', rttMs: 80, sourceAddress: '127.0.0.4', country: 'US' },
  { name: 'intercontinental', rttMs: 150, sourceAddress: '127.0.0.5', country: 'JP' },
  { name: 'satellite', rttMs: 300, sourceAddress: '127.0.0.6', country: 'AU' },
];

export function profileByName(name: string): RttProfile {
  const p = RTT_PROFILES.find((x) => x.name === name);
  if (!p) throw new Error(`unknown RTT profile "${name}" (known: ${RTT_PROFILES.map((x) => x.name).join(', ')})`);
  return p;
}

/** Lines for the collector's GEOIP_OVERRIDES file. */
export function geoipOverrides(profiles: readonly RttProfile[] = RTT_PROFILES): string {
  return (
    profiles.map((p) => `${p.sourceAddress}/32 ${p.country}   # lab profile ${p.name} (${p.rttMs} ms RTT)`).join('\n') +
    '\n'
  );
}
