/**
 * How the synthetic runner reaches the lab through one RTT profile: TCP servers through the profile's
 * delaying SOCKS proxy; HTTP/3 through its delaying UDP relay (QUIC does not go through SOCKS: the h3
 * origins resolve to the relay, which listens on Caddy's port on its own loopback address).
 */
import type { SyntheticOptions } from '@tlsrum/synth';
import type { RunningLab } from './lab';
import type { RttProfile } from './profiles';
import { hostOf, ORIGIN_PREFIXES } from './servers';

export type LabPath = Pick<SyntheticOptions, 'proxy' | 'hostResolver' | 'h3Origins' | 'spkiHashes' | 'caCertPath'>;

export function labPath(lab: RunningLab, profile: RttProfile, transport: 'tcp' | 'quic'): LabPath {
  const trust = { spkiHashes: [lab.ca.leafSpki, ...lab.crypto.spkis], caCertPath: lab.ca.caCert };
  if (transport === 'tcp')
    return { ...trust, proxy: `socks5://127.0.0.1:${lab.socks[profile.name]}`, hostResolver: {} };
  const relay = lab.udp[profile.name];
  if (!relay) throw new Error(`the lab has no UDP relay for profile ${profile.name} (started without QUIC?)`);
  return {
    ...trust,
    hostResolver: { '*.h3.lab.test': relay.split(':')[0]! },
    h3Origins: ORIGIN_PREFIXES.map((p) => `${hostOf(p, 'h3')}:${lab.ports.h3}`),
  };
}
