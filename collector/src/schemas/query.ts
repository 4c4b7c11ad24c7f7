/**
 * Query strings and answers of the query API (compare, timeseries, map, phases): the TypeBox schemas
 * validate requests and document the API at /docs.
 */
import { Type, type Static } from 'typebox';
import { BROWSERS, Hostname, MAX_TS, MIN_TS, RECORD_SOURCES } from '@tlsrum/shared';
import { DIMENSIONS } from '../queries/dimensions';

const dimensionAlternatives = DIMENSIONS.join('|');
/** Comma-separated dimension names from the whitelist, one to three. */
export const DimensionList = (max: number, description: string) =>
  Type.String({ pattern: `^(?:${dimensionAlternatives})(?:,(?:${dimensionAlternatives})){0,${max - 1}}$`, description });

export const CommonQuery = {
  from: Type.Optional(Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'Start, epoch ms, inclusive (default: 7 days before `to`).' })),
  to: Type.Optional(Type.Integer({ minimum: MIN_TS, maximum: MAX_TS, description: 'End, epoch ms, exclusive (default: now).' })),
  site: Type.Optional({
    ...Hostname,
    description: "One registered site (needs that site's read token, or the admin token). Without it: every site together.",
  }),
  source: Type.Optional(Type.Enum([...RECORD_SOURCES], { description: 'rum or synthetic' })),
  browser: Type.Optional(Type.Enum([...BROWSERS], { description: 'Browser family' })),
  country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country (ZZ = unknown)' })),
  table: Type.Optional(
    Type.Enum(['auto', 'raw', 'rollup'], {
      description:
        'Where to read: auto = the daily rollup for ranges of 7 days or more (widened to whole UTC days), the raw table otherwise. The answer\'s `table` says what was read: a query the rollup cannot answer (browser or source filter, country with another dimension, hourly buckets) reads the raw table.',
      default: 'auto',
    }),
  ),
};
export type CommonQuery = Static<Type.TObject<typeof CommonQuery>>;

const Quantiles = Type.Object(
  { p50: Type.Number(), p75: Type.Number(), p95: Type.Number() },
  { description: 'Milliseconds. Raw table: t-digest, within 1 % of exact. Rollup: log-scale histogram buckets, within 2.5 % of exact (values under 0.1 ms report as 0).' },
);
const Shares = Type.Record(Type.String(), Type.Number());

export const Cell = Type.Object({
  key: Type.Record(Type.String(), Type.String(), { description: 'The group: one value per requested dimension.' }),
  t: Type.Optional(Type.Integer({ description: 'Start of the time bucket, epoch ms (timeseries).' })),
  suppressed: Type.Optional(Type.Boolean({ description: 'Fewer distinct clients than minClients: no numbers are given.' })),
  records: Type.Optional(Type.Integer()),
  clients: Type.Optional(
    Type.Integer({ description: 'Distinct client tokens. Raw table: exact up to a few hundred, a HyperLogLog estimate (±2 %) beyond. Rollup: exact up to 99; 100 means 100 or more (clientsCapped).' }),
  ),
  clientsCapped: Type.Optional(Type.Boolean({ description: 'clients is a lower bound: the rollup counts distinct clients only up to 100.' })),
  dns: Type.Optional(Quantiles),
  tcp: Type.Optional(Quantiles),
  tls: Type.Optional(Quantiles),
  connect: Type.Optional(Quantiles),
  ttfb: Type.Optional(Quantiles),
  mix: Type.Optional(
    Type.Record(Type.String(), Shares, { description: 'Share of records (0–1) by handshakeClass, protocol, tlsVersion and mode.' }),
  ),
  evidence: Type.Optional(
    Type.Object(
      { evidenced: Type.Number(), inferred: Type.Number() },
      { description: 'Share of records whose resumption was observed or reported by the server, vs inferred from timings.' },
    ),
  ),
});

export const QueryAnswer = Type.Object({
  table: Type.Enum(['raw', 'rollup'], { description: 'Which table answered.' }),
  from: Type.Integer({ description: 'Range actually covered, epoch ms (the rollup widens it to whole UTC days).' }),
  to: Type.Integer(),
  site: Type.Union([Type.String(), Type.Null()], { description: 'The site read, or null for every site.' }),
  minClients: Type.Integer({ description: 'Cells with fewer distinct clients are suppressed.' }),
  truncated: Type.Boolean({ description: 'More groups exist than were answered.' }),
  cells: Type.Array(Cell),
});
