/**
 * Query strings and answers of the query API (compare, timeseries, map, phases): the TypeBox schemas
 * validate requests and document the API at /docs. Filters, dimensions and answers come from the shared
 * query catalogue (@tlsrum/shared/query), which the dashboard reads too.
 */
import { Type, type Static } from 'typebox';
import { MAX_TS, MIN_TS } from '@tlsrum/shared';
import { FilterQuery } from '@tlsrum/shared/query/schemas';

export { DimensionList, QueryAnswer } from '@tlsrum/shared/query/schemas';

/** `from` and `to` of a read route, documenting its default range. */
export const TimeRange = (defaultFrom: string, defaultTo = 'now') => ({
  from: Type.Optional(
    Type.Integer({
      minimum: MIN_TS,
      maximum: MAX_TS,
      description: `Start, epoch ms, inclusive (default: ${defaultFrom}).`,
    }),
  ),
  to: Type.Optional(
    Type.Integer({
      minimum: MIN_TS,
      maximum: MAX_TS,
      description: `End, epoch ms, exclusive (default: ${defaultTo}).`,
    }),
  ),
});

export const CommonQuery = {
  ...TimeRange('7 days before `to`'),
  ...FilterQuery,
  table: Type.Optional(
    Type.Enum(['auto', 'raw', 'rollup'], {
      description: `Where to read: auto = the daily rollup for ranges of 7 days or more (widened to whole UTC days), the raw table otherwise. The answer's \`table\` says what was read: a query no cut of the rollup holds (e.g. an hourly series with a country, browser or source filter) reads the raw table.`,
      default: 'auto',
    }),
  ),
};
export type CommonQuery = Static<Type.TObject<typeof CommonQuery>>;
