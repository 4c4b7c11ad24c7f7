/**
 * Two validators: request bodies are validated strictly (no type coercion: a string "12" is not a
 * number) and unknown properties are removed, never stored; query strings are coerced, since every
 * value arrives as a string. allErrors stays off so a hostile body cannot make validation expensive.
 */
import { Ajv, type Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

const common: Options = { removeAdditional: true, useDefaults: true, allErrors: false, strict: false };
const bodyAjv = new Ajv({ ...common, coerceTypes: false });
const queryAjv = new Ajv({ ...common, coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
