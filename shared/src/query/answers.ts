/**
 * Names and labels the answers of /v1/whatif and /v1/alerts use: the collector computes with the names,
 * the dashboard shows the labels. Plain data (no TypeBox): schemas.ts builds the answer schemas on it.
 */

/** What-if scenarios, in the order the collector evaluates them (the answer ranks them by saving). */
export const SCENARIO_LABELS = {
  tls13: 'TLS 1.2 full → TLS 1.3',
  resumption: 'resumption on every repeat visit',
  zero_rtt: '0-RTT on every repeat visit',
  http3: 'HTTP/3 (QUIC)',
  combined_handshake: 'combined TCP+TLS handshake (1 RTT)',
  ocsp_stapled: 'OCSP response stapled',
  ecdsa_leaf: 'ECDSA P-256 certificate key',
  shorter_chain: 'certificate chain of at most 2',
} as const;
export type ScenarioName = keyof typeof SCENARIO_LABELS;
export const SCENARIOS = Object.keys(SCENARIO_LABELS) as ScenarioName[];

/** Regression checks: a share that can drop or a p75 that can rise. */
export const CHECK_LABELS = {
  resumption_drop: 'resumption share',
  tls13_drop: 'TLS 1.3 share',
  h3_drop: 'HTTP/3 share',
  tls_p75_rise: 'p75 TLS handshake time',
  connect_p75_rise: 'p75 connect time',
} as const;
export type CheckName = keyof typeof CHECK_LABELS;
export const CHECKS = Object.keys(CHECK_LABELS) as CheckName[];

export const CHECK_STATUS_LABELS = { firing: 'FIRING', ok: 'ok', insufficient_data: 'too little data' } as const;
export type CheckStatus = keyof typeof CHECK_STATUS_LABELS;
export const CHECK_STATUSES = Object.keys(CHECK_STATUS_LABELS) as CheckStatus[];

export const ALERT_WINDOWS = ['hour', 'day'] as const;

/**
 * Probe change checks (collector/src/probes/changes.ts): read from a site's probe history, not from field data;
 * their alerts carry the window `probe`.
 */
export const PROBE_CHECK_LABELS = {
  probe_resumption_lost: 'session resumption stopped working',
  probe_tls13_disabled: 'TLS 1.3 turned off',
  probe_h3_lost: 'HTTP/3 no longer advertised',
  probe_ocsp_lost: 'OCSP stapling lost',
  probe_leaf_changed: 'certificate key changed',
  probe_chain_changed: 'certificate chain changed',
  probe_cert_expiring: 'certificate expires in under 14 days',
} as const;
export type ProbeCheckName = keyof typeof PROBE_CHECK_LABELS;
export const PROBE_CHECKS = Object.keys(PROBE_CHECK_LABELS) as ProbeCheckName[];
export const PROBE_WINDOW = 'probe';
