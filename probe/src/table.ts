/** The readable output: a phase breakdown like `curl -w`, the facts, then the findings. */
import type { ProbeResult } from '@tlsrum/shared';
import { findings } from './findings';

const MARK = { good: '✓', warn: '!', bad: '✗', info: '·' } as const;
const ms = (v: number | null) => (v === null ? '   —' : `${v.toFixed(1).padStart(7)} ms`);
const yn = (v: boolean | null) => (v === null ? 'unknown' : v ? 'yes' : 'no');

export function formatResult(r: ProbeResult, runs: number): string {
  const p = r.phases;
  const sum = [p.dns, p.tcp, p.tls].reduce<number | null>((a, b) => (a === null || b === null ? null : a + b), 0);
  const n = r.tls.negotiated;
  const leaf = r.cert.leaf;
  const lines = [
    `${r.url}`,
    `  phases (median of ${runs} cold run${runs === 1 ? '' : 's'})`,
    `    dns lookup       ${ms(p.dns)}`,
    `    tcp connect      ${ms(p.tcp)}`,
    `    tls handshake    ${ms(p.tls)}`,
    `    = connection     ${ms(sum)}`,
    `    time to 1st byte ${ms(p.ttfb)}   (after the request was sent)`,
    `  tls        1.0 ${yn(r.tls.versions['1.0'])}, 1.1 ${yn(r.tls.versions['1.1'])}, 1.2 ${yn(r.tls.versions['1.2'])}, 1.3 ${yn(r.tls.versions['1.3'])}`,
    `  negotiated ${n.version ? `TLS ${n.version}, ${n.cipher}, group ${n.group ?? '—'}, ALPN ${n.alpn ?? 'none'}` : '—'}`,
    `  pq hybrid  ${r.pq.supported === null ? 'not testable here' : yn(r.pq.supported)}`,
    `  chain      ${r.cert.chainLength} certificate(s), ${r.cert.chainBytes} bytes` +
      (leaf
        ? `; leaf ${leaf.keyType}${leaf.keyBits ? `-${leaf.keyBits}` : ''}, ${leaf.signatureAlgorithm}, issuer ${leaf.issuer}, ${leaf.daysToExpiry} days left`
        : ''),
    `  ocsp       stapled: ${yn(r.ocsp.stapled)}`,
    `  resumption 1.2 ${yn(r.resumption['1.2'])}, 1.3 ${yn(r.resumption['1.3'])}, ticket lifetime ${r.resumption.ticketLifetimeS === null ? '—' : `${r.resumption.ticketLifetimeS} s`}, 0-RTT ${yn(r.earlyData.allowed)}`,
    `  alt-svc    ${r.h3.altSvc ?? '—'}`,
    '',
    ...findings(r).map((f) => `  ${MARK[f.level]} ${f.text}`),
  ];
  return lines.join('\n');
}
