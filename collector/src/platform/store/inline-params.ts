/**
 * Bound parameters (`{name:Type}` with `query_params`) written into the SQL as typed literals, for the embedded
 * store only. chDB's Node binding runs every query with parameters one at a time in the whole process (its
 * engine's parameter state is not isolated between connections), so on the embedded store a month's dataset
 * export or a what-if made every other reader wait for it, whatever the read pool's size (docs/decisions/0008).
 * Queries without parameters run side by side. A server keeps the wire's own parameters (clients.ts does not
 * wrap it).
 *
 * Each placeholder becomes `CAST(literal AS Type)`: the value as a SQL literal (a string quoted with every
 * backslash, quote and control character escaped; a finite number; an array of those), converted to the
 * declared type by the engine, so a value is data and never SQL, as with bound parameters.
 */
import type { ClickHouseClient } from '@clickhouse/client';

/** Placeholder: `{name:Type}`; a type has no braces (`Array(String)`, `DateTime64(3, 'UTC')`). */
const PLACEHOLDER = /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/g;

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** A JavaScript value as a ClickHouse SQL literal; throws on a value with no literal (an object, NaN). */
export function sqlLiteral(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/[\\'\0\b\f\n\r\t]/g, (c) => ESCAPES[c]!)}'`;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`query parameter ${value} is not a finite number`);
    return String(value);
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(sqlLiteral).join(', ')}]`;
  throw new TypeError(`query parameter of type ${value === null ? 'null' : typeof value} has no SQL literal here`);
}

/**
 * `sql` with each `{name:Type}` of `params` written as `CAST(literal AS Type)`. A placeholder without a
 * value is an error, as the engine's own binding would make it.
 */
export function inlineParams(sql: string, params: Record<string, unknown>): string {
  return sql.replace(PLACEHOLDER, (_all, name: string, type: string) => {
    if (!Object.hasOwn(params, name)) throw new TypeError(`query parameter "${name}" has no value`);
    return `CAST(${sqlLiteral(params[name])} AS ${type})`;
  });
}

type WithParams = { query: string; query_params?: Record<string, unknown>; clickhouse_settings?: object };

/** The engine's default limit on the text of one query: a long array written into it needs a larger one. */
const DEFAULT_MAX_QUERY_SIZE = 262_144;

function inlined<P extends WithParams>(p: P): P {
  if (!p.query_params || Object.keys(p.query_params).length === 0) return p;
  const query = inlineParams(p.query, p.query_params);
  const { query_params: _bound, ...rest } = p;
  const bytes = Buffer.byteLength(query);
  return {
    ...rest,
    query,
    ...(bytes > DEFAULT_MAX_QUERY_SIZE / 2
      ? { clickhouse_settings: { ...p.clickhouse_settings, max_query_size: String(2 * bytes) } }
      : {}),
  } as P;
}

/** `client` with the parameters of its queries, commands and execs written into their SQL. */
export function withInlinedParams(client: ClickHouseClient): ClickHouseClient {
  return new Proxy(client, {
    get(target, prop) {
      if (prop === 'query' || prop === 'command' || prop === 'exec') {
        const method = target[prop].bind(target) as (p: WithParams) => Promise<unknown>;
        return (p: WithParams) => method(inlined(p));
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
