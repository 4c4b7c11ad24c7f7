/**
 * One plain sentence per finding, for a site owner who is not a TLS expert: what was seen and why it
 * matters. The errors first, then each check of the list (checks.ts) read from the result, so the command
 * line, the dashboard and the change alerts say the same thing.
 */
import type { ProbeResult } from '@tlsrum/shared/probe';
import { CONFIG_CHECKS, sentence, type FindingLevel } from './checks';

export type { FindingLevel };
export interface Finding {
  level: FindingLevel;
  text: string;
}

export function findings(r: ProbeResult): Finding[] {
  const out: Finding[] = r.errors.map((e) => ({ level: 'bad', text: `Could not complete a check — ${e}.` }));
  // Unreachable: every check would be unknown, the errors say why.
  if (r.tls.negotiated.version === null) return out;
  for (const check of CONFIG_CHECKS) {
    const reading = check.read(r);
    const text = sentence(check, reading);
    const level = reading.status === 'unknown' ? 'info' : check.level[reading.status];
    if (text !== null && level !== null) out.push({ level, text });
  }
  return out;
}
