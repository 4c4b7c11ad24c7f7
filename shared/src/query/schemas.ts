/**
 * TypeBox schemas of the query API, built on the catalogue: the query-string filters and dimension lists
 * the collector validates, and the answers it serialises (Fastify response schemas, so they appear in the
 * OpenAPI document at /docs). The dashboard uses their `Static` types: one shape for both ends.
 */
import { Type, type Static, type TOptional, type TSchema, type TString } from 'typebox';
import { HANDSHAKE_CLASSES } from '../constants';
import { Hostname } from '../schema';
import { ProbeResult } from '../probe';
import { ALERT_WINDOWS, CHECK_STATUSES, CHECKS, PROBE_CHECKS, PROBE_WINDOW, SCENARIOS } from './answers';
import {
  DIMENSION_NAMES,
  DIMENSIONS,
  FILTER_NAMES,
  MIX_DIMENSIONS,
  FILTERS,
  type DimensionInfo,
  type FilterName,
  type FilterInfo,
} from './catalogue';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** A filter's query-string schema: the site a hostname, a closed dimension one of its values, an open one its pattern. */
function filterSchema(f: FilterInfo): TSchema {
  if (!f.dimension) return { ...Hostname, description: f.description };
  const d: DimensionInfo = DIMENSIONS[f.dimension];
  if (d.values) return Type.Enum([...d.values] as string[], { description: f.description });
  return Type.String({ pattern: d.pattern, description: f.description });
}

/** Every filter as an optional query-string property (each is a string once validated). */
export const FilterQuery = Object.fromEntries(
  FILTER_NAMES.map((f) => [f, Type.Optional(filterSchema(FILTERS[f]))]),
) as unknown as {
  [K in FilterName]: TOptional<TString>;
};
export type FilterQuery = Static<Type.TObject<typeof FilterQuery>>;

const dimensionAlternatives = DIMENSION_NAMES.join('|');
const dimensionDocs = DIMENSION_NAMES.map((d) => `\`${d}\`: ${DIMENSIONS[d].description}`).join(' ');
/** Comma-separated dimension names of the catalogue, one to `max`; the documentation lists what each means. */
export const DimensionList = (max: number, description: string) =>
  Type.String({
    pattern: `^(?:${dimensionAlternatives})(?:,(?:${dimensionAlternatives})){0,${max - 1}}$`,
    description: `${description} ${dimensionDocs}`,
  });

export const Quantiles = Type.Object(
  { p50: Type.Number(), p75: Type.Number(), p95: Type.Number() },
  {
    description:
      'Milliseconds. Raw table: t-digest, within 1 % of exact. Rollup: log-scale histogram buckets, within 2.5 % of exact (values under 0.1 ms report as 0).',
  },
);
export type Quantiles = Static<typeof Quantiles>;
/**
 * A cell's group and shares name each property they may hold (the catalogue's dimensions, each mix's values) rather
 * than allowing any: the answers' serializer then writes them straight, not testing a pattern on every key (an
 * hourly series of a month by stack, 2 880 cells, in about half the time).
 */
// Typed as the records they were (any key's value may be read; an absent one is undefined, as it was).
const optionalEach = <T extends TSchema>(names: readonly string[], t: () => T) =>
  Object.fromEntries(names.map((n) => [n, Type.Optional(t())])) as unknown as Record<string, T>;
const Shares = (mix: (typeof MIX_DIMENSIONS)[number]) =>
  Type.Object(optionalEach(DIMENSIONS[mix].values as readonly string[], () => Type.Number()));

export const Cell = Type.Object({
  key: Type.Object(optionalEach(DIMENSION_NAMES, Type.String), {
    description: 'The group: one value per requested dimension.',
  }),
  t: Type.Optional(Type.Integer({ description: 'Start of the time bucket, epoch ms (timeseries).' })),
  suppressed: Type.Optional(
    Type.Boolean({ description: 'Fewer distinct clients than minClients: no numbers are given.' }),
  ),
  records: Type.Optional(Type.Integer()),
  clients: Type.Optional(
    Type.Integer({
      description:
        'Distinct client tokens. Exact up to 99 in both tables; beyond, the raw table reports a uniqCombined64 count (exact up to 127, a HyperLogLog estimate with a standard error of 1.6 % above) and the rollup 100, meaning 100 or more (clientsCapped).',
    }),
  ),
  clientsCapped: Type.Optional(
    Type.Boolean({ description: 'clients is a lower bound: the rollup counts distinct clients only up to 100.' }),
  ),
  fewClients: Type.Optional(
    Type.Literal(true, {
      description:
        "The cell rests on few people, so one person's records can move its figures: fewer than twice minClients distinct clients, or (raw table, where the per-client cap is exact per cell) its 3 heaviest clients could hold half of its records — min(3·K·days, records − clients + 3) ≥ records / 2, K being the cap per client, cell and day. Absent otherwise.",
    }),
  ),
  dns: Type.Optional(Quantiles),
  tcp: Type.Optional(Quantiles),
  tls: Type.Optional(Quantiles),
  connect: Type.Optional(Quantiles),
  ttfb: Type.Optional(Quantiles),
  mix: Type.Optional(
    Type.Object(
      Object.fromEntries(MIX_DIMENSIONS.map((m) => [m, Shares(m)])) as Record<
        (typeof MIX_DIMENSIONS)[number],
        ReturnType<typeof Shares>
      >,
      {
        description: `Share of records (0–1) by ${MIX_DIMENSIONS.join(', ')}. A value is absent when its share, with the others shown, would let the records of a group of too few people be worked out (docs/integrity.md).`,
      },
    ),
  ),
  evidence: Type.Optional(
    Type.Object(
      { evidenced: Type.Number(), inferred: Type.Number() },
      {
        description:
          'Share of records whose resumption was observed or reported by the server, vs inferred from timings.',
      },
    ),
  ),
});
export type Cell = Static<typeof Cell>;

export const QueryAnswer = Type.Object({
  table: Type.Enum(['raw', 'rollup'], { description: 'Which table answered.' }),
  from: Type.Integer({ description: 'Range actually covered, epoch ms (the rollup widens it to whole UTC days).' }),
  to: Type.Integer(),
  site: Type.Union([Type.String(), Type.Null()], { description: 'The site read, or null for every site.' }),
  minClients: Type.Integer({
    description: 'Cells with fewer distinct clients are suppressed (except in an ownSynthetic answer).',
  }),
  ownSynthetic: Type.Optional(
    Type.Literal(true, {
      description:
        "The site owner's own synthetic runs: asked with the site's read token and source=synthetic, the answer holds only the records sent with that token (`pnpm synth --token`). No person is in them, so no cell is suppressed or marked fewClients and no per-client cap applies; they are read from the raw table. Absent otherwise.",
    }),
  ),
  truncated: Type.Boolean({ description: 'More groups exist than were answered.' }),
  cells: Type.Array(Cell),
});
export type QueryAnswer = Static<typeof QueryAnswer>;

// GET /v1/whatif. Measured values are numbers (fractions of a millisecond or of a round trip); counts integers.
const P50P75 = Type.Object({ p50: Type.Number(), p75: Type.Number() });

export const WhatIfScenario = Type.Object({
  scenario: Type.Enum(SCENARIOS),
  ttfb: P50P75,
  saving: P50P75,
  affected: Type.Number({ description: 'Share of connections whose set-up gets shorter.' }),
  roundTripsSaved: Type.Number({ description: 'Mean round trips saved per connection.' }),
  assumption: Type.String(),
});
export type WhatIfScenario = Static<typeof WhatIfScenario>;

const ClassShare = Type.Object({ share: Type.Number(), roundTrips: Nullable(Type.Number()) });

export const WhatIfAccounting = Type.Object({
  connections: Type.Integer(),
  rttMs: Nullable(Type.Number({ description: "Median of the connections' RTTs, ms." })),
  roundTrips: Type.Object(
    { dns: Type.Number(), tcp: Type.Number(), tls: Type.Number(), total: Type.Number() },
    { description: 'Mean round trips per new connection before the request can leave, by phase.' },
  ),
  tlsByClass: Type.Record(Type.Enum([...HANDSHAKE_CLASSES]), ClassShare, {
    description: 'Share of connections by handshake class and the TLS round trips each costs.',
  }),
  repeatShare: Type.Number({ description: 'Share of connections that were repeats (could have resumed).' }),
  meanMs: Type.Object({ dns: Type.Number(), tcp: Type.Number(), tls: Type.Number() }),
  ttfb: P50P75,
});
export type WhatIfAccounting = Static<typeof WhatIfAccounting>;

export const WhatIfResult = Type.Object({
  accounting: WhatIfAccounting,
  scenarios: Type.Array(WhatIfScenario, { description: 'Ranked by p75 saving, largest first.' }),
  quicRoundTrips: Nullable(
    Type.Number({
      description:
        'QUIC handshake round trips measured in the region (one region only; null when too few h3 connections).',
    }),
  ),
});
export type WhatIfResult = Static<typeof WhatIfResult>;

export const WhatIfRegion = Type.Object({
  country: Type.String(),
  connections: Type.Optional(Type.Integer({ description: 'Absent when suppressed.' })),
  suppressed: Type.Optional(Type.Boolean()),
  result: Type.Optional(Nullable(WhatIfResult)),
});

export const WhatIfAnswer = Type.Object({
  site: Nullable(Type.String()),
  from: Type.Integer(),
  to: Type.Integer(),
  connections: Type.Integer({ description: 'Connections analysed (shown regions only).' }),
  sampled: Type.Boolean({
    description: 'The range held more connections than `limit`: a sample spread evenly over the range was analysed.',
  }),
  ticketLifetimeHours: Type.Integer(),
  assumptions: Type.Object({
    general: Type.Array(Type.String()),
    scenarios: Type.Record(Type.Enum(SCENARIOS), Type.String()),
  }),
  overall: Nullable(WhatIfResult),
  overallSuppressed: Type.Optional(Type.Boolean()),
  regions: Type.Array(WhatIfRegion),
  probe: Type.Optional(
    Nullable(
      Type.Object(
        {
          at: Type.Integer({ description: 'when the probe ran, epoch ms' }),
          ocspStapled: Nullable(Type.Boolean()),
          leafKeyType: Nullable(Type.Enum(['rsa', 'ecdsa', 'ed25519', 'other'])),
          leafKeyBits: Nullable(Type.Integer()),
          chainLength: Type.Integer(),
          chainBytes: Type.Integer(),
        },
        {
          description:
            "The site's latest probe profile the OCSP, ECDSA and chain scenarios fall back on for connections whose records carry no such fact (null: no probe of the site yet, or every site together).",
        },
      ),
    ),
  ),
});
export type WhatIfAnswer = Static<typeof WhatIfAnswer>;

// GET /v1/alerts.
export const Alert = Type.Object({
  site: Type.String(),
  window: Type.Enum([...ALERT_WINDOWS, PROBE_WINDOW], {
    description: "hour/day: field data against the week before; probe: the site's probe history",
  }),
  check: Type.Enum([...CHECKS, ...PROBE_CHECKS]),
  hostname: Type.Optional(
    Type.String({
      description: 'probe checks: the hostname probed (the site or an extra hostname registered with it)',
    }),
  ),
  summary: Type.Optional(Type.String({ description: 'probe checks: the finding in one sentence' })),
  status: Type.Enum(CHECK_STATUSES),
  current: Nullable(Type.Number()),
  baseline: Nullable(Type.Number()),
  change: Nullable(Type.Number()),
  pValue: Nullable(Type.Number()),
  samples: Type.Object(
    { current: Nullable(Type.Integer()), baseline: Nullable(Type.Integer()) },
    {
      description:
        'records in each window’s denominator; null for a window with fewer distinct clients than the threshold (a small cell’s count is never shown)',
    },
  ),
  since: Nullable(Type.Integer()),
  evaluatedAt: Type.Integer(),
  range: Type.Object({
    from: Type.Integer(),
    to: Type.Integer(),
    baselineFrom: Type.Integer(),
    baselineTo: Type.Integer(),
  }),
});
export type Alert = Static<typeof Alert>;

export const AlertsAnswer = Type.Object({
  evaluatedAt: Nullable(Type.Integer()),
  thresholds: Type.Object({
    alpha: Type.Number(),
    minSamples: Type.Integer(),
    minClients: Type.Integer(),
    shareDrop: Type.Number(),
    p75Rise: Type.Number(),
  }),
  alerts: Type.Array(Alert),
});
export type AlertsAnswer = Static<typeof AlertsAnswer>;

// GET /v1/sites/:hostname/probes (collector/src/probes/route.ts).
const Probe = Type.Object({
  hostname: Type.String(),
  at: Type.Integer({ description: 'epoch ms' }),
  result: ProbeResult,
});
export const ProbesAnswer = Type.Object({
  site: Type.String(),
  from: Type.Integer(),
  to: Type.Integer(),
  intervalMs: Type.Integer({ description: 'PROBE_INTERVAL_MS (0 = scheduled probing off)' }),
  hostnames: Type.Array(Type.String(), { description: 'the site and the extra hostnames registered for it' }),
  latest: Type.Array(
    Type.Object({
      ...Probe.properties,
      findings: Type.Array(Type.Object({ level: Type.Enum(['good', 'warn', 'bad', 'info']), text: Type.String() })),
    }),
    { description: 'the newest probe of each hostname in the range, with its findings in plain sentences' },
  ),
  history: Type.Array(Probe),
  changes: Type.Array(
    Type.Object({
      hostname: Type.String(),
      at: Type.Integer(),
      fact: Type.String(),
      from: Type.String(),
      to: Type.String(),
    }),
    { description: 'each fact that changed, at the first probe that saw the new value' },
  ),
});
export type ProbesAnswer = Static<typeof ProbesAnswer>;

/** `GET /v1/about`: who runs the collector and how long it keeps records — what the extension shows before consent. */
export const AboutAnswer = Type.Object({
  operator: Nullable(
    Type.String({ description: 'Who runs this collector (OPERATOR_NAME); null when not configured.' }),
  ),
  contact: Nullable(Type.String({ description: 'An e-mail address or URL to reach the operator (OPERATOR_CONTACT).' })),
  privacyPolicyUrl: Nullable(Type.String({ description: 'The operator’s privacy policy (PRIVACY_POLICY_URL).' })),
  retentionDays: Type.Integer({ description: 'Stored records are deleted after this many days (RETENTION_DAYS).' }),
  stores: Type.Object({
    country: Type.Boolean({ description: 'A country derived from the sending address is stored with each record.' }),
    address: Type.Boolean({ description: 'The sending address itself is stored (never).' }),
  }),
});
export type AboutAnswer = Static<typeof AboutAnswer>;
