/** The percentiles every query reports, and the connection phases they are computed for. */
export const PERCENTILES = '0.5, 0.75, 0.95';
export const HANDSHAKE_PHASES = ['tls', 'connect', 'ttfb'] as const;
export const ALL_PHASES = ['dns', 'tcp', 'tls', 'connect', 'ttfb'] as const;
export type Phase = (typeof ALL_PHASES)[number];
