/**
 * Session resumption per version: a second connection offers the session (ticket or id) the first one
 * received; `isSessionReused()` says whether the server accepted it. Ticket lifetime and the early-data
 * allowance come from the first session's own fields (session.ts).
 */
import type { ProbeResult } from '@tlsrum/shared';
import { connectTls, type StageError, type Target } from './connect';
import { sessionFacts } from './session';
import { versionOptions, type VersionTry } from './versions';

export interface ResumptionFacts {
  resumption: ProbeResult['resumption'];
  earlyData: ProbeResult['earlyData'];
  errors: string[];
}

async function resumes(
  target: Target,
  tried: VersionTry,
  timeoutMs: number,
): Promise<{ resumed: boolean | null; error: string | null }> {
  if (tried.accepted !== true) return { resumed: null, error: null };
  // No session or ticket issued at all: nothing a client could resume with.
  if (!tried.session) return { resumed: false, error: null };
  try {
    const conn = await connectTls(target, { ...versionOptions(tried.version), session: tried.session }, timeoutMs);
    const resumed = conn.socket.isSessionReused();
    conn.socket.destroy();
    return { resumed, error: null };
  } catch (err) {
    const e = err as StageError;
    return { resumed: null, error: `resumption ${tried.version}, ${e.stage}: ${e.message}` };
  }
}

export async function resumptionFacts(
  target: Target,
  tries: VersionTry[],
  timeoutMs: number,
): Promise<ResumptionFacts> {
  const of = (v: string) => tries.find((t) => t.version === v)!;
  const [r12, r13] = await Promise.all([resumes(target, of('1.2'), timeoutMs), resumes(target, of('1.3'), timeoutMs)]);
  const errors = [r12.error, r13.error].filter((e): e is string => e !== null);
  const facts = (t: VersionTry) => {
    if (!t.session) return null;
    try {
      return sessionFacts(t.session);
    } catch (err) {
      errors.push(`session ${t.version}: unreadable (${(err as Error).message})`);
      return null;
    }
  };
  const s13 = facts(of('1.3'));
  const s12 = facts(of('1.2'));
  const ticketLifetimeS =
    (s13?.hasTicket ? s13.ticketLifetimeS : null) ?? (s12?.hasTicket ? s12.ticketLifetimeS : null);
  return {
    resumption: { '1.2': r12.resumed, '1.3': r13.resumed, ticketLifetimeS },
    // Early data rides on a TLS 1.3 ticket: no TLS 1.3, nothing to say; TLS 1.3 without a ticket, no 0-RTT.
    earlyData: { allowed: of('1.3').accepted === true ? (s13?.maxEarlyData ?? 0) > 0 : null },
    errors,
  };
}
