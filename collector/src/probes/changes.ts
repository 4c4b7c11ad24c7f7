/**
 * Probe change checks, pure: a site's probe history in (oldest first), one verdict per check out. Stateless
 * on purpose — every collector (and a restarted one) reaches the same verdict from the same stored history.
 *
 * "Lost" checks fire from the first probe that sees a feature gone which an earlier probe saw working, and
 * stay firing while it stays gone; a feature never seen working is a recommendation, not an alert. Probes
 * that could not measure a fact (`null`: unreachable, timeout) are skipped, never read as "gone".
 * "Changed" checks fire on the probe whose certificate differs from the one before, until the next probe.
 */
import type { ProbeResult } from '@tlsrum/shared';
import { PROBE_CHECKS, type ProbeCheckName } from '@tlsrum/shared/query';
import type { ProbeIdentity } from '@tlsrum/probe';
import { CONFIG_CHECKS, EXPIRY_WARNING_DAYS } from '@tlsrum/probe/checks';

export interface ProbeSnapshot {
  /** When the probe ran, epoch ms. */
  at: number;
  result: ProbeResult;
  identity: ProbeIdentity;
}

export { PROBE_CHECKS, type ProbeCheckName };

export interface ProbeCheckResult {
  check: ProbeCheckName;
  status: 'ok' | 'firing' | 'insufficient_data';
  /** The first probe that saw the change (epoch ms), while firing. */
  since: number | null;
  /** One sentence for a site owner. */
  summary: string;
}

type Feature = (r: ProbeResult) => boolean | null;

const reachable = (r: ProbeResult) => r.tls.negotiated.version !== null;

/** The "lost" alerts: each check of the list whose loss raises one, read as that check reads (checks.ts). */
const LOSS_ALERTS = CONFIG_CHECKS.flatMap((c) => {
  if (!c.lossAlert) return [];
  const has: Feature = (r) => {
    const { status } = c.read(r);
    return status === 'unknown' ? null : status === 'pass';
  };
  return [{ check: c.lossAlert.check, has, lost: c.lossAlert.summary }];
}).sort((a, b) => PROBE_CHECKS.indexOf(a.check) - PROBE_CHECKS.indexOf(b.check));

function lostCheck(
  { check, has, lost }: (typeof LOSS_ALERTS)[number],
  history: ProbeSnapshot[],
  site: string,
): ProbeCheckResult {
  const measured = history.map((s) => ({ at: s.at, v: has(s.result) })).filter((s) => s.v !== null);
  const latest = measured.at(-1);
  if (!latest) return { check, status: 'insufficient_data', since: null, summary: `${site}: not measured yet` };
  if (latest.v) return { check, status: 'ok', since: null, summary: `${site}: fine` };
  let i = measured.length - 1;
  while (i > 0 && !measured[i - 1]!.v) i--;
  if (i === 0)
    return { check, status: 'ok', since: null, summary: `${site}: never seen on (a recommendation, not a change)` };
  return { check, status: 'firing', since: measured[i]!.at, summary: `${site}: ${lost}` };
}

function changedCheck(
  check: 'probe_leaf_changed' | 'probe_chain_changed',
  history: ProbeSnapshot[],
  site: string,
): ProbeCheckResult {
  const key = check === 'probe_leaf_changed' ? 'leafSpkiSha256' : 'chainSha256';
  const seen = history.filter((s) => s.identity[key] !== null);
  const [prev, latest] = [seen.at(-2), seen.at(-1)];
  if (!prev || !latest)
    return { check, status: 'insufficient_data', since: null, summary: `${site}: fewer than two probes` };
  if (prev.identity[key] === latest.identity[key])
    return { check, status: 'ok', since: null, summary: `${site}: unchanged` };
  const what =
    check === 'probe_leaf_changed' ? 'the certificate key changed' : 'the certificate chain the server sends changed';
  return {
    check,
    status: 'firing',
    since: latest.at,
    summary: `${site}: ${what} (new certificate or key rollover — expected after a renewal)`,
  };
}

function expiryCheck(history: ProbeSnapshot[], site: string): ProbeCheckResult {
  const check = 'probe_cert_expiring';
  const seen = history.filter((s) => s.result.cert.leaf !== null);
  const latest = seen.at(-1);
  if (!latest) return { check, status: 'insufficient_data', since: null, summary: `${site}: no certificate seen yet` };
  const days = latest.result.cert.leaf!.daysToExpiry;
  if (days >= EXPIRY_WARNING_DAYS)
    return { check, status: 'ok', since: null, summary: `${site}: certificate valid for ${days} more days` };
  let i = seen.length - 1;
  while (i > 0 && seen[i - 1]!.result.cert.leaf!.daysToExpiry < EXPIRY_WARNING_DAYS) i--;
  const text = days < 0 ? `the certificate expired ${-days} day(s) ago` : `the certificate expires in ${days} day(s)`;
  return { check, status: 'firing', since: seen[i]!.at, summary: `${site}: ${text}` };
}

export function evaluateProbeChecks(site: string, history: ProbeSnapshot[]): ProbeCheckResult[] {
  const sorted = [...history].sort((a, b) => a.at - b.at);
  return [
    ...LOSS_ALERTS.map((alert) => lostCheck(alert, sorted, site)),
    changedCheck('probe_leaf_changed', sorted, site),
    changedCheck('probe_chain_changed', sorted, site),
    expiryCheck(sorted, site),
  ];
}

/** A fact of the profile as the change log names it, and how to read it from a result. */
const FACTS: { name: string; read: (r: ProbeResult) => string | number | boolean | null }[] = [
  { name: 'TLS 1.0', read: (r) => r.tls.versions['1.0'] },
  { name: 'TLS 1.1', read: (r) => r.tls.versions['1.1'] },
  { name: 'TLS 1.2', read: (r) => r.tls.versions['1.2'] },
  { name: 'TLS 1.3', read: (r) => r.tls.versions['1.3'] },
  { name: 'key exchange group', read: (r) => r.tls.negotiated.group },
  { name: 'ALPN', read: (r) => (reachable(r) ? (r.tls.negotiated.alpn ?? 'none') : null) },
  { name: 'post-quantum key exchange', read: (r) => r.pq.supported },
  { name: 'leaf key', read: (r) => (r.cert.leaf ? `${r.cert.leaf.keyType}-${r.cert.leaf.keyBits ?? '?'}` : null) },
  { name: 'issuer', read: (r) => r.cert.leaf?.issuer ?? null },
  { name: 'chain length', read: (r) => (r.cert.leaf ? r.cert.chainLength : null) },
  { name: 'OCSP stapling', read: (r) => r.ocsp.stapled },
  { name: 'TLS 1.2 resumption', read: (r) => r.resumption['1.2'] },
  { name: 'TLS 1.3 resumption', read: (r) => r.resumption['1.3'] },
  { name: '0-RTT', read: (r) => r.earlyData.allowed },
  { name: 'HTTP/3 advertised', read: (r) => (reachable(r) ? r.h3.advertised : null) },
];

const show = (v: string | number | boolean) => (v === true ? 'on' : v === false ? 'off' : String(v));

export interface ProfileChange {
  hostname: string;
  /** The probe that first saw the new value, epoch ms. */
  at: number;
  fact: string;
  from: string;
  to: string;
}

/**
 * What changed when, per hostname: each fact's value compared with its last measured value (facts a probe
 * could not measure are skipped, not read as changes), plus certificate renewals seen by identity.
 */
export function changeLog(history: (ProbeSnapshot & { hostname: string })[]): ProfileChange[] {
  const out: ProfileChange[] = [];
  const last = new Map<string, string | number | boolean>();
  for (const s of [...history].sort((a, b) => a.at - b.at)) {
    for (const f of FACTS) {
      const v = f.read(s.result);
      if (v === null) continue;
      const key = `${s.hostname}\u0000${f.name}`;
      const prev = last.get(key);
      if (prev !== undefined && prev !== v)
        out.push({ hostname: s.hostname, at: s.at, fact: f.name, from: show(prev), to: show(v) });
      last.set(key, v);
    }
    const chain = s.identity.chainSha256;
    if (chain !== null) {
      const key = `${s.hostname}\u0000chain`;
      const prev = last.get(key);
      if (prev !== undefined && prev !== chain)
        out.push({
          hostname: s.hostname,
          at: s.at,
          fact: 'certificate',
          from: String(prev).slice(0, 12),
          to: chain.slice(0, 12),
        });
      last.set(key, chain);
    }
  }
  return out;
}
