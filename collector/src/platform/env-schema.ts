/**
 * Settings read from environment variables, described by a TypeBox schema: the schema's shape is the
 * settings object's shape, and every leaf names its variable (`env`) and says what it is for
 * (`description`), with its type, default and bounds as ordinary schema keywords. The parser, its error
 * messages and the documentation table all derive from that one description, so a new variable is one
 * schema entry.
 *
 * Leaf annotations beyond JSON Schema:
 * - `env`: the variable's name; `description`: Markdown, shown in the table of docs/configuration.md.
 * - `expected`: what a pattern or refinement asks for, in words ("an http(s) URL").
 * - `path`: a file or folder, resolved against the working directory.
 * - `derive` + `defaultText`: a default computed from variables read before this one.
 * - `trim: false`: keep surrounding spaces (a password).
 * An unset or empty variable takes the default; a leaf made with `nullable()` defaults to null.
 */
import { isAbsolute, resolve } from 'node:path';
import { Type, type TSchema } from 'typebox';
import { Value } from 'typebox/value';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

export interface EnvAnnotations {
  env: string;
  description: string;
  expected?: string;
  path?: boolean;
  derive?: (read: ReadonlyMap<string, unknown>) => unknown;
  defaultText?: string;
  trim?: boolean;
}

/** A leaf that is null when its variable is unset. */
export function nullable<T extends TSchema>(type: T, annotations: EnvAnnotations) {
  return Type.Union([type, Type.Null()], { ...annotations, default: null });
}

type Leaf = TSchema & EnvAnnotations & { default?: unknown };

const isLeaf = (s: TSchema): s is Leaf => typeof (s as Partial<Leaf>).env === 'string';

/** The schema a set value is checked against (the non-null branch of a `nullable`). */
function valueSchema(leaf: Leaf): TSchema {
  if (Type.IsUnion(leaf) && leaf.default === null) return leaf.anyOf[0]!;
  return leaf;
}

/** Every leaf in declaration order (the order variables are read and documented in). */
export function leaves(schema: TSchema): Leaf[] {
  if (isLeaf(schema)) return [schema];
  if (Type.IsObject(schema)) return Object.values(schema.properties).flatMap((p) => leaves(p as TSchema));
  throw new Error('an env schema is made of objects and leaves with an `env` annotation');
}

function literals(s: TSchema): string[] | null {
  if (Type.IsUnion(s) && s.anyOf.every((b) => Type.IsLiteral(b))) return s.anyOf.map((b) => String(b.const));
  if (Type.IsEnum(s)) return s.enum.map(String);
  return null;
}

/** What a value of `s` must be, in words. */
function expectation(s: TSchema & { expected?: string }): string {
  const values = literals(s);
  if (values) return `one of ${values.join(', ')}`;
  if (s.expected) return s.expected;
  if (Type.IsInteger(s)) return 'a whole number';
  if (Type.IsNumber(s)) return 'a number';
  if (Type.IsBoolean(s)) return 'true or false';
  return 'a string';
}

/** The first thing wrong with `value`, phrased for the variable `name`; null when it fits. */
function problem(s: TSchema & { expected?: string }, value: unknown, name: string): string | null {
  const error = Value.Errors(s, value)[0];
  if (!error) return null;
  const { minimum, maximum, minLength, minItems } = s as {
    minimum?: number;
    maximum?: number;
    minLength?: number;
    minItems?: number;
  };
  switch (error.keyword) {
    case 'minimum':
    case 'maximum':
      return `${name} must be between ${minimum ?? '-∞'} and ${maximum ?? '∞'}, got ${String(value)}`;
    case 'minLength':
      return `${name} must be at least ${minLength} characters`;
    case 'minItems':
      return `${name} must list at least ${minItems} value${minItems === 1 ? '' : 's'}`;
    default:
      return `${name} must be ${expectation(s)}, got "${String(value)}"`;
  }
}

const WHOLE = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?(e-?\d+)?$/i;

/** The value a variable's text stands for (type conversion only; keywords are checked after). */
function convert(s: TSchema, text: string, name: string): unknown {
  if (Type.IsInteger(s)) {
    if (!WHOLE.test(text)) throw new ConfigError(`${name} must be a whole number, got "${text}"`);
    return Number(text);
  }
  if (Type.IsNumber(s)) {
    if (!DECIMAL.test(text) || !Number.isFinite(Number(text)))
      throw new ConfigError(`${name} must be a number, got "${text}"`);
    return Number(text);
  }
  if (Type.IsBoolean(s)) {
    if (text !== 'true' && text !== 'false') throw new ConfigError(`${name} must be true or false, got "${text}"`);
    return text === 'true';
  }
  if (Type.IsArray(s)) {
    // A comma-separated list; each item is checked on its own so the message can point at it.
    const items = text
      .split(',')
      .map((i) => i.trim())
      .filter(Boolean)
      .map((item) => {
        const v = convert(s.items, item, name);
        if (Value.Errors(s.items, v).length > 0)
          throw new ConfigError(`${name}: "${item}" is not ${expectation(s.items)}`);
        return v;
      });
    return items;
  }
  return text;
}

function readLeaf(leaf: Leaf, env: Env, read: Map<string, unknown>, cwd: string): unknown {
  const raw = env[leaf.env];
  const text = leaf.trim === false ? raw : raw?.trim();
  let value: unknown;
  if (text === undefined || text === '') {
    value = leaf.derive ? leaf.derive(read) : structuredClone(leaf.default);
  } else {
    const s = valueSchema(leaf);
    value = convert(s, text, leaf.env);
    const wrong = problem(s, value, leaf.env);
    if (wrong) throw new ConfigError(wrong);
  }
  if (leaf.path && typeof value === 'string' && !isAbsolute(value)) value = resolve(cwd, value);
  read.set(leaf.env, value);
  return value;
}

/**
 * Reads every variable the schema names, in declaration order, and returns the settings object (after
 * the schema's decoders, e.g. a list without duplicates). Throws a ConfigError naming the variable.
 */
export function parseEnv<S extends TSchema>(schema: S, env: Env, cwd = process.cwd()) {
  const read = new Map<string, unknown>();
  const walk = (s: TSchema): unknown => {
    if (isLeaf(s)) return readLeaf(s, env, read, cwd);
    if (!Type.IsObject(s)) throw new Error('an env schema is made of objects and leaves with an `env` annotation');
    return Object.fromEntries(Object.entries(s.properties).map(([key, p]) => [key, walk(p as TSchema)]));
  };
  return Value.Decode(schema, walk(schema));
}

function shownDefault(leaf: Leaf): string {
  if (leaf.defaultText !== undefined) return leaf.defaultText;
  const d = leaf.default;
  if (d === null || d === undefined || (Array.isArray(d) && d.length === 0)) return '—';
  if (d === '') return 'empty';
  return `\`${Array.isArray(d) ? d.join(',') : String(d)}\``;
}

function shownBounds(leaf: Leaf): string {
  const s = valueSchema(leaf) as TSchema & { minimum?: number; maximum?: number; minLength?: number };
  const item = Type.IsArray(s) ? s.items : s;
  const values = literals(item);
  if (values) return `${Type.IsArray(s) ? 'list of ' : ''}${values.map((v) => `\`${v}\``).join(', ')}`;
  if (s.minimum !== undefined && s.maximum !== undefined) return `${s.minimum} – ${s.maximum}`;
  if (s.minLength !== undefined) return `≥ ${s.minLength} characters`;
  if (Type.IsBoolean(s)) return '`true`, `false`';
  const expected = (item as { expected?: string }).expected;
  if (expected) return Type.IsArray(s) ? `comma-separated, each ${expected}` : expected;
  return leaf.path ? 'a path' : '';
}

/** The Markdown table of every variable: name, default, allowed values, meaning. */
export function envTable(schema: TSchema): string {
  const rows = leaves(schema).map(
    (l) => `| \`${l.env}\` | ${shownDefault(l)} | ${shownBounds(l)} | ${l.description} |`,
  );
  return ['| variable | default | allowed | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
