/**
 * Two validators: request bodies are validated strictly (no type coercion: a string "12" is not a
 * number) and unknown properties are removed, never stored; query strings are coerced, since every
 * value arrives as a string, and an unknown parameter is refused (400 naming it): a misspelt or
 * made-up filter must not be silently ignored, or an answer would look filtered when it is not.
 * allErrors stays off so a hostile body cannot make validation expensive.
 */
import { Ajv, type Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

const common: Options = { useDefaults: true, allErrors: false, strict: false };
const bodyAjv = new Ajv({ ...common, removeAdditional: true, coerceTypes: false });
// verbose: a refused value and its schema's description reach the error message (validation-message.ts).
const queryAjv = new Ajv({ ...common, removeAdditional: false, coerceTypes: 'array', verbose: true });

/** A query-string schema with every parameter it does not list refused (unless it says otherwise). */
function closed(schema: object): object {
  const s = schema as { type?: unknown; additionalProperties?: unknown };
  return s.type === 'object' && s.additionalProperties === undefined
    ? { ...schema, additionalProperties: false }
    : schema;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body'
    ? bodyAjv.compile(schema as object)
    : queryAjv.compile(httpPart === 'querystring' ? closed(schema as object) : (schema as object))) as ReturnType<
    FastifySchemaCompiler<unknown>
  >;
