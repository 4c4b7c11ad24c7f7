/**
 * A refused parameter's message in plain words: Ajv says "must match pattern ^(?:tlsVersion|…)$" or "must be
 * equal to one of the allowed values"; a reader needs what was sent, why it is refused and what is accepted,
 * the exact form last. Used by the error handler for the first validation error of a request.
 */
import { HOSTNAME_PATTERN } from '@tlsrum/shared';
import { DIMENSION_NAMES } from '@tlsrum/shared/query';

export interface ValidationIssue {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: { allowedValues?: unknown[]; pattern?: string; limit?: number; type?: string };
  /** With Ajv's `verbose` (the query strings' validator): the value refused and its schema. */
  data?: unknown;
  parentSchema?: { description?: string };
}

/** The longest part of a refused value repeated in a message. */
const SHOWN_CHARS = 80;
/** Epoch milliseconds from 2001 on: a `from` or `to` bound also shown as a date. */
const EPOCH_MS_FROM = 1e12;

/** What a value of each JSON type is, in words. */
const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  string: 'text',
};

/** The refused value, quoted and shortened; "the value" when the validator did not pass it on (bodies). */
const shown = (value: unknown) => {
  if (value === undefined) return 'the value';
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return JSON.stringify(s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}…` : s);
};

/** A dimension list's pattern (DimensionList in shared/query/schemas.ts): its maximum count, or null. */
function dimensionListMax(pattern: string): number | null {
  if (!pattern.startsWith(`^(?:${DIMENSION_NAMES.join('|')})`)) return null;
  const m = /\{0,(\d+)\}\$$/.exec(pattern);
  return m ? Number(m[1]) + 1 : 1;
}

function dimensionListMessage(where: string, value: unknown, max: number): string {
  const names = String(value).split(',');
  const known: readonly string[] = DIMENSION_NAMES;
  const unknown = names.find((n) => !known.includes(n));
  const accepted = `one to ${max} of ${DIMENSION_NAMES.join(', ')}, separated by commas`;
  if (unknown !== undefined)
    return unknown === ''
      ? `${where}: ${shown(value)} has an empty name; give ${accepted}`
      : `${where}: ${shown(unknown)} is not a dimension; give ${accepted}`;
  return `${where}: ${names.length} dimensions given, at most ${max}; give ${accepted}`;
}

/**
 * The message for a validation issue at `where` (e.g. `querystring/dimensions`), or null to keep the
 * validator's own words (a missing property, a length: they already read plainly).
 */
export function validationMessage(where: string, issue: ValidationIssue): string | null {
  const { keyword, params = {}, data } = issue;
  if (keyword === 'enum' && params.allowedValues)
    return `${where}: ${shown(data)} is not one of ${params.allowedValues.map(String).join(', ')}`;
  if (keyword === 'pattern' && params.pattern !== undefined) {
    const max = dimensionListMax(params.pattern);
    if (max !== null) return dimensionListMessage(where, data, max);
    if (params.pattern === HOSTNAME_PATTERN)
      return `${where}: ${shown(data)} is not a hostname: lower-case letters, digits and hyphens, in labels separated by dots (e.g. www.example.com)`;
    const about = issue.parentSchema?.description?.trim();
    return `${where}: ${shown(data)} is not accepted here.${about ? ` ${/[.)]$/.test(about) ? about : `${about}.`}` : ''} Exact form: ${params.pattern}`;
  }
  const type = params.type === undefined ? undefined : TYPE_WORDS[params.type];
  if (keyword === 'type' && type !== undefined && data !== undefined) return `${where}: ${shown(data)} is not ${type}`;
  const bound = params.limit;
  if ((keyword === 'minimum' || keyword === 'maximum') && typeof bound === 'number' && bound >= EPOCH_MS_FROM)
    return `${where} ${issue.message ?? ''} (${new Date(bound).toISOString()}, in epoch milliseconds)`;
  return null;
}
