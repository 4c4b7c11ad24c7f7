/**
 * One plain sentence per finding, for a site owner who is not a TLS expert: what was seen and why it
 * matters. The errors first, then each check of the list (checks.ts) read from the result, so the command
 * line, the dashboard and the change alerts say the same thing. A failed check carries its advice and the
 * nginx and Caddy directive from the same list, so what to change is never looked up elsewhere.
 */
import type { ProbeResult } from '@tlsrum/shared/probe';
import { CONFIG_CHECKS, sentence, type ConfigCheck, type FindingLevel } from './checks';

export type { FindingLevel };
export interface Finding {
  level: FindingLevel;
  text: string;
  /** The check that said it (absent for a line about an error). */
  check?: string;
  /** A failed check's advice and fix, exactly as the list declares them. */
  advice?: { text: string; nginx: string; caddy: string };
}

export function findings(r: ProbeResult): Finding[] {
  const out: Finding[] = r.errors.map((e) => ({ level: 'bad', text: `Could not complete a check — ${e}.` }));
  // Unreachable: every check would be unknown, the errors say why.
  if (r.tls.negotiated.version === null) return out;
  for (const check of CONFIG_CHECKS) {
    const reading = check.read(r);
    const text = sentence(check, reading);
    const level = reading.status === 'unknown' ? 'info' : check.level[reading.status];
    if (text === null || level === null) continue;
    out.push({
      level,
      text,
      check: check.id,
      ...(reading.status === 'fail' ? { advice: adviceOf(check) } : {}),
    });
  }
  return out;
}

function adviceOf(check: ConfigCheck): NonNullable<Finding['advice']> {
  return { text: check.advice, nginx: check.fix.nginx, caddy: check.fix.caddy };
}
