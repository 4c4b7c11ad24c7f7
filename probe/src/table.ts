/**
 * The readable output: a phase breakdown like `curl -w`, the facts, then the findings, each failed one with
 * what to change in nginx and in Caddy. A host that could not be reached gets its reason first: a table of
 * "unknown" would only hide it.
 */
import type { ProbeResult } from '@tlsrum/shared';
import { findings, type Finding } from './findings';

const MARK = { good: '✓', warn: '!', bad: '✗', info: '·' } as const;
const ms = (v: number | null) => (v === null ? '   —' : `${v.toFixed(1).padStart(7)} ms`);
const yn = (v: boolean | null) => (v === null ? 'unknown' : v ? 'yes' : 'no');

/** What to check for the stage that failed first, in plain words. */
const NEXT_STEP: Record<string, string> = {
  dns: 'check the host name, or give its address with --resolve HOST=IP',
  tcp: 'check that the server runs and listens on this port, and that no firewall is in the way',
  tls: 'the server answered but the TLS handshake failed: check that this port speaks HTTPS (not plain HTTP) and that its certificate and key are loaded',
};

function findingLines(f: Finding): string[] {
  const lines = [`  ${MARK[f.level]} ${f.text}`];
  if (f.advice)
    lines.push(
      `      what to do: ${f.advice.text}`,
      `      nginx: ${f.advice.nginx}`,
      `      Caddy: ${f.advice.caddy}`,
    );
  return lines;
}

export function formatResult(r: ProbeResult, runs: number): string {
  const n = r.tls.negotiated;
  if (n.version === null) return unreachable(r, runs);
  return [r.url, ...facts(r, runs), '', ...findings(r).flatMap(findingLines)].join('\n');
}

/** No handshake completed: the reason first, then only the facts that were still measured. */
function unreachable(r: ProbeResult, runs: number): string {
  const first = r.errors[0] ?? 'no connection completed';
  const stage = /^(\w+):/.exec(first)?.[1] ?? '';
  const lines = [
    r.url,
    `  ✗ Could not reach this server: ${first}.`,
    ...(NEXT_STEP[stage] ? [`      what to do: ${NEXT_STEP[stage]}.`] : []),
    ...r.errors.slice(1).map((e) => `  ✗ Also: ${e}.`),
  ];
  const anyVersion = Object.values(r.tls.versions).some((v) => v !== null);
  if (anyVersion) lines.push('', '  what could still be measured:', ...facts(r, runs));
  else lines.push('  Nothing else was measured: every check needs a completed connection.');
  return lines.join('\n');
}

function facts(r: ProbeResult, runs: number): string[] {
  const p = r.phases;
  const sum = [p.dns, p.tcp, p.tls].reduce<number | null>((a, b) => (a === null || b === null ? null : a + b), 0);
  const n = r.tls.negotiated;
  const leaf = r.cert.leaf;
  return [
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
    `  ocsp       stapled: ${yn(r.ocsp.stapled)}${r.ocsp.responder === false ? ' (the certificate names no OCSP service)' : ''}`,
    `  resumption 1.2 ${yn(r.resumption['1.2'])}, 1.3 ${yn(r.resumption['1.3'])}, ticket lifetime ${r.resumption.ticketLifetimeS === null ? '—' : `${r.resumption.ticketLifetimeS} s`}, 0-RTT ${yn(r.earlyData.allowed)}`,
    `  alt-svc    ${r.h3.altSvc ?? '—'}`,
  ];
}
