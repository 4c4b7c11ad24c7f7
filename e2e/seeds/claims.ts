/**
 * The seeds' headline claims (../shared/seeds/), each declared once: the seed file, the claim, the
 * seed's figure and its conditions. `lab` names the measurement that answers it (measure.ts), or says
 * why the lab cannot (yet).
 */
export type LabAnswer =
  { kind: 'measured'; key: MeasurementKey } | { kind: 'pending'; why: string } | { kind: 'not-testable'; why: string };

export type MeasurementKey =
  | 'tls13-vs-tls12'
  | 'quic-vs-h2'
  | 'ticket-resumption'
  | 'zero-rtt'
  | 's-time-handshake'
  | 'tls13-saving-40ms'
  | 'resumption-saving-40ms'
  | 'full-vs-resumed-lan'
  | 'resumption-alert'
  | 'combined-handshake'
  | 'rsa4096-vs-ecdsa'
  | 'chain-depth'
  | 'chain-trim-saving'
  | 'ecdsa-saving';

export interface Claim {
  id: string;
  seed: string;
  claim: string;
  seedFigure: string;
  seedConditions: string;
  lab: LabAnswer;
}

export const CLAIMS: readonly Claim[] = [
  {
    id: '000-a',
    seed: '000_cc16228e55d729dc.txt',
    claim: 'TLS 1.3 handshakes are faster than TLS 1.2 (average handshake latency)',
    seedFigure: 'TLS 1.3 57.4 ms vs TLS 1.2 88.9 ms (−35 %)',
    seedConditions: 'OpenSSL 3.2, netem 30–200 ms, 120 cloud nodes',
    lab: { kind: 'measured', key: 'tls13-vs-tls12' },
  },
  {
    id: '000-b',
    seed: '000_cc16228e55d729dc.txt',
    claim: 'QUIC completes its handshake faster than HTTP/2 over TCP',
    seedFigure: 'QUIC ≈ 91 ms vs HTTP/2 138 ms at 150 ms simulated latency (−34 %)',
    seedConditions: '150 ms simulated latency',
    lab: { kind: 'measured', key: 'quic-vs-h2' },
  },
  {
    id: '000-c',
    seed: '000_cc16228e55d729dc.txt',
    claim: 'Session-ticket resumption shortens connection set-up',
    seedFigure: '−37 % against a full handshake',
    seedConditions: 'Table 3, against "baseline full handshakes"',
    lab: { kind: 'measured', key: 'ticket-resumption' },
  },
  {
    id: '000-d',
    seed: '000_cc16228e55d729dc.txt',
    claim: '0-RTT early data shortens connection set-up the most',
    seedFigure: '−41 % (38 ms vs 65 ms)',
    seedConditions: 'Table 3',
    lab: { kind: 'measured', key: 'zero-rtt' },
  },
  {
    id: '000-e',
    seed: '000_cc16228e55d729dc.txt',
    claim: 'RSA-4096 handshakes are slower than ECDHE-RSA-P256 ones',
    seedFigure: '2.3× slower',
    seedConditions: 'OpenSSL 3.2 servers',
    lab: { kind: 'measured', key: 'rsa4096-vs-ecdsa' },
  },
  {
    id: '000-f',
    seed: '000_cc16228e55d729dc.txt',
    claim: 'Each extra intermediate certificate adds latency, nearly linearly in chain depth',
    seedFigure: '≈ +912 ms per intermediate',
    seedConditions: 'Figure 4',
    lab: { kind: 'measured', key: 'chain-depth' },
  },
  {
    id: '001-a',
    seed: '001_45b5784074ed7ff8.txt',
    claim: 'TLS 1.3 (ChaCha20) handshakes cost the server less time than TLS 1.2 (AES-256-GCM)',
    seedFigure: '4.8 → 3.0 ms (−37 %)',
    seedConditions: 'nginx 1.18 + OpenSSL 3.0.2 on a LAN, `openssl s_time`',
    lab: { kind: 'measured', key: 's-time-handshake' },
  },
  {
    id: '001-b',
    seed: '001_45b5784074ed7ff8.txt',
    claim: 'TTFB falls with TLS 1.3 (server-side)',
    seedFigure: '48.3 → 30.1 ms',
    seedConditions: 'wrk at throughput (430 → 515 Mbit/s) on a LAN',
    lab: {
      kind: 'not-testable',
      why: 'a TTFB under a saturating load generator (wrk) is a throughput test; the lab times single visits, and load tests belong to bench/ (not run for this report). The handshake part is row 001-a',
    },
  },
  {
    id: '002-a',
    seed: '002_a0c0340e9b28d7ce.txt',
    claim: 'Moving from TLS 1.2 to TLS 1.3 saves one round trip',
    seedFigure: '−40 ms at ≈ 40 ms RTT',
    seedConditions: 'curl, ≈ 40 ms RTT',
    lab: { kind: 'measured', key: 'tls13-saving-40ms' },
  },
  {
    id: '002-b',
    seed: '002_a0c0340e9b28d7ce.txt',
    claim: 'OCSP stapling saves the browser its own OCSP round trip',
    seedFigure: '−60 ms',
    seedConditions: 'curl, ≈ 40 ms RTT',
    lab: {
      kind: 'not-testable',
      why: 'the lab browsers never fetch OCSP during a handshake: Chromium does no online revocation check for these certificates, and the lab CA runs no OCSP responder; there is no fetch for stapling to save',
    },
  },
  {
    id: '002-c',
    seed: '002_a0c0340e9b28d7ce.txt',
    claim: 'Session resumption saves one round trip',
    seedFigure: '−40 ms at ≈ 40 ms RTT',
    seedConditions: 'curl, ≈ 40 ms RTT (TLS 1.2)',
    lab: { kind: 'measured', key: 'resumption-saving-40ms' },
  },
  {
    id: '002-d',
    seed: '002_a0c0340e9b28d7ce.txt',
    claim: 'Trimming the certificate chain saves time',
    seedFigure: '−10 ms',
    seedConditions: '3 → 2 certificates, ≈ 40 ms RTT',
    lab: { kind: 'measured', key: 'chain-trim-saving' },
  },
  {
    id: '002-e',
    seed: '002_a0c0340e9b28d7ce.txt',
    claim: 'An ECDSA certificate instead of RSA saves time',
    seedFigure: '−5 ms',
    seedConditions: '≈ 40 ms RTT',
    lab: { kind: 'measured', key: 'ecdsa-saving' },
  },
  {
    id: '003-a',
    seed: '003_8477c0d4166fcecd.txt',
    claim: 'Full TLS handshakes are much slower than resumed ("short") ones',
    seedFigure: '≈ 8× slower',
    seedConditions: 'Java client and server in one data centre (RTT ≈ 0: CPU-bound)',
    lab: { kind: 'measured', key: 'full-vs-resumed-lan' },
  },
  {
    id: '003-b',
    seed: '003_8477c0d4166fcecd.txt',
    claim: 'A monitoring tool notices when resumption breaks',
    seedFigure: 'found by wire analytics (NAM) after a JVM upgrade',
    seedConditions: 'production incident',
    lab: { kind: 'measured', key: 'resumption-alert' },
  },
  {
    id: '004-a',
    seed: '004_760856e57b7d4538.txt',
    claim: 'Embedding the TLS handshake in TCP’s saves set-up time',
    seedFigure: '−3.2 % to −14 % at 11.6 ms ping',
    seedConditions: 'prototype (SSL in the TCP 3-way handshake), 11.6 ms ping',
    lab: { kind: 'measured', key: 'combined-handshake' },
  },
];
