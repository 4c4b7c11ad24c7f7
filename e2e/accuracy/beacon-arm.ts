/**
 * The site-beacon arm: the lab pages carry the served beacon's tag (site: the page's host `a.`; extra
 * hostname: `b.`, the host that sends the `Server-Timing` TLS lines; `c.` is a third party without
 * Timing-Allow-Origin, never sent), viewed by several simulated visitors in Chromium and Firefox ESR. Each
 * visitor reaches the real collector through a front of its own (lab/beacon-front.ts) that names the
 * visitor's address in X-Forwarded-For (`TRUST_PROXY=1`), so the collector derives one client identity
 * per visitor, and suppression and the per-client cap count them. The browser side lives in the beacon
 * package's test support (beacon/test/support/accuracy-arm.ts), imported by path at run time.
 *
 * Join: a stored record names its site, not the connection's host; the fronts keep the beacon bodies
 * they forwarded, whose entries do. A record takes the host of the entry with its start time and type,
 * then joins as the extension's records do (extension-arm.ts: visit window, the profile proxy's
 * connections to that host, the server's log line).
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measurementOf } from '@tlsrum/shared';
import type { CapturedBeacon } from '../lab/beacon-front';
import type { RunningLab } from '../lab/lab';
import type { RttProfile } from '../lab/profiles';
import type { LabProbe } from '../lab/site-profiles';
import type { ServerId } from '../lab/servers';
import { joinExtensionRows, type ExtensionVisit } from './extension-arm';
import type { Browser, MatrixResult } from './run';

export interface BeaconArmOptions {
  browsers: Browser[];
  profiles: RttProfile[];
  /** Lab servers; h3 gets launches of its own (QUIC to the profile's UDP relay). */
  servers: ServerId[];
  /** Simulated visitors, each with its own browser profile and client address. */
  visitors: number;
  /** Views of each server per visitor: the first opens a full handshake, later ones may resume. */
  rounds: number;
  probes?: readonly LabProbe[];
  onProgress?: (line: string) => void;
}

export interface BeaconArmView {
  browser: Browser;
  profile: RttProfile;
  server: ServerId;
  visitor: number;
  round: number;
  start: number;
  end: number;
  beacons: number;
  error?: string;
}

export interface BeaconArmResult {
  views: BeaconArmView[];
  /** The page records the collector stored (ts as a UTC date-time string). */
  rows: Record<string, unknown>[];
  /** The beacon bodies the fronts forwarded, with the collector's answer. */
  captured: CapturedBeacon[];
  /** Visitor i's client address. */
  addresses: string[];
  browserVersions: Partial<Record<Browser, string>>;
  minClientsPerCell: number;
}

export async function runBeaconArm(lab: RunningLab, o: BeaconArmOptions): Promise<BeaconArmResult> {
  const path = resolve(
    fileURLToPath(new URL('.', import.meta.url)),
    '..',
    '..',
    'beacon',
    'test',
    'support',
    'accuracy-arm.ts',
  );
  const mod = (await import(path)) as { runBeaconArm: typeof runBeaconArm };
  return mod.runBeaconArm(lab, o);
}

const epochOf = (ts: unknown) => (typeof ts === 'number' ? ts : Date.parse(`${String(ts).replace(' ', 'T')}Z`));

/** What the arm did beyond its samples: bodies forwarded and answered, identities the collector derived. */
export interface BeaconArmCounts {
  views: number;
  failedViews: number;
  beacons: number;
  /** Beacon bodies the collector answered with anything but 202. */
  refused: number;
  /** What the collector said to each refused body (status and message), so a refusal names its cause. */
  refusals: string[];
  records: number;
  joined: number;
  /** Distinct client identities per site among the stored records (fewest, most), and visitors whose beacons were taken. */
  identitiesPerSite: [number, number];
  visitors: number;
  /** Records whose entry (host) could not be found among the forwarded bodies. */
  withoutEntry: number;
}

/** The records joined to their connections, as samples of arm `beacon`. */
export function joinBeaconRows(
  arm: BeaconArmResult,
  lab: { logs: { dir: string; proxy: string }; crypto?: { chainBytes: Partial<Record<ServerId, number>> } },
): Pick<MatrixResult, 'samples' | 'unjoined'> & { counts: BeaconArmCounts } {
  const entries = arm.captured
    .filter((c) => c.status === 202)
    .flatMap((c) => {
      const body = JSON.parse(c.body) as { site: string; timeOrigin: number; entries: unknown[] };
      return body.entries.flatMap((tuple) => {
        const m = measurementOf(tuple, body.timeOrigin);
        return m
          ? [{ site: body.site, visitor: c.visitor, host: m.host, type: m.timing.entryType, start: m.startEpochMs }]
          : [];
      });
    });
  let withoutEntry = 0;
  const rows = arm.rows.flatMap((row) => {
    const ts = epochOf(row.ts);
    const e = entries.find((x) => x.site === row.site && x.type === row.entryType && Math.abs(x.start - ts) <= 1);
    if (!e) {
      withoutEntry++;
      return [];
    }
    // The join reads the connection's host from `site`, as an extension record of a registered host has it.
    return [{ ...row, site: e.host }];
  });
  const visits: ExtensionVisit[] = arm.views.map((v) => ({
    browser: v.browser,
    profile: v.profile,
    mode: v.round === 0 ? 'cold' : 'warm',
    server: v.server,
    prime: false,
    start: v.start,
    end: v.end,
    counted: v.beacons,
    ...(v.error ? { error: v.error } : {}),
  }));
  const joined = joinExtensionRows({ visits, rows, browserVersions: arm.browserVersions }, lab, 'beacon');
  const taken = arm.captured.filter((c) => c.status === 202);
  return {
    samples: joined.samples,
    unjoined: [
      ...joined.unjoined,
      ...Array.from({ length: withoutEntry }, () => ({
        arm: 'beacon' as const,
        server: '?',
        host: '?',
        why: 'no forwarded beacon entry with its start time',
      })),
    ],
    counts: {
      views: arm.views.length,
      failedViews: joined.failedVisits,
      beacons: arm.captured.length,
      refused: arm.captured.length - taken.length,
      refusals: arm.captured.filter((c) => c.status !== 202).map((c) => `${c.status} ${c.refusal ?? ''}`.trim()),
      records: arm.rows.length,
      joined: joined.samples.length,
      identitiesPerSite: identitiesPerSite(arm.rows),
      visitors: new Set(taken.map((c) => c.visitor)).size,
      withoutEntry,
    },
  };
}

/** The identity is keyed by site: one visitor is one client per site. */
function identitiesPerSite(rows: readonly Record<string, unknown>[]): [number, number] {
  const bySite = new Map<unknown, Set<unknown>>();
  for (const r of rows) {
    let set = bySite.get(r.site);
    if (!set) bySite.set(r.site, (set = new Set()));
    set.add(r.clientToken);
  }
  const sizes = [...bySite.values()].map((s) => s.size);
  return sizes.length ? [Math.min(...sizes), Math.max(...sizes)] : [0, 0];
}
