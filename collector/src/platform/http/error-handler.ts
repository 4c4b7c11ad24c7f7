/**
 * The one error handler: every error leaves as `{statusCode, error, message}` with the right 4xx, and
 * a 5xx never carries internals (no stack, no store message) to the client — those go to the log.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { clickhouseErrorName } from '../../ingest/store-errors';
import { QueryBusyError } from '../store/query-pool';
import { validationMessage, type ValidationIssue } from './validation-message';

const STORE_LIMITS: Record<string, string> = {
  TIMEOUT_EXCEEDED:
    'this question takes longer than the collector allows one query: choose a shorter range or fewer groups, or retry later',
  MEMORY_LIMIT_EXCEEDED:
    'this question needs more memory than the collector allows one query: choose a shorter range or fewer groups, or retry later',
};

const errorHandler: FastifyPluginAsync = async (app) => {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    let message = err.message;
    let headers = (err as { headers?: Record<string, string> }).headers;
    if (err instanceof QueryBusyError) {
      status = 503;
      headers = { 'retry-after': String(err.retryAfterSeconds) };
    }
    // A query stopped by its time or memory limit (QUERY_TIMEOUT_MS, QUERY_MAX_MEMORY_BYTES).
    const limit = STORE_LIMITS[clickhouseErrorName(err) ?? ''];
    if (limit) {
      status = 503;
      message = limit;
      headers = { 'retry-after': '30' };
    }
    // Refusals the collector decided on (httpError, a full query queue, a query limit) say why, 503s included.
    const deliberate =
      err instanceof QueryBusyError || !!limit || (typeof err.code === 'string' && err.code.startsWith('TLSRUM_'));
    if (err.validation) {
      status = 400;
      // Ajv's own words do not name the parameter, or show a regular expression: say which and why.
      const first = err.validation[0] as (ValidationIssue & { params?: { additionalProperty?: string } }) | undefined;
      const context = err.validationContext ?? 'querystring';
      if (first?.keyword === 'additionalProperties' && first.params?.additionalProperty !== undefined) {
        message = `${context}/${first.params.additionalProperty} is not a parameter of this route`;
      } else if (first) {
        message = validationMessage(`${context}${first.instancePath ?? ''}`, first) ?? message;
      }
    } else if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (err instanceof SyntaxError && status === 400)) {
      // The body parser's SyntaxError carries its 400; any other (a stored value that does not parse) is ours.
      status = 400;
      message = 'body is not valid JSON';
    } else if (typeof err.code === 'string' && err.code.startsWith('Z_')) {
      // zlib: the body claimed gzip but is not (or is truncated).
      status = 400;
      message = 'body is not valid gzip';
    }
    if (status >= 500 && !deliberate) {
      request.log.error({ err }, 'request failed');
      message = 'internal error';
    } else {
      request.log.info({ status, code: err.code, reason: message }, 'request refused');
    }
    if (headers) reply.headers(headers);
    return reply.status(status).send({ statusCode: status, error: STATUS_CODES[status] ?? 'Error', message });
  });

  app.setNotFoundHandler((_request, reply) =>
    reply.status(404).send({ statusCode: 404, error: 'Not Found', message: 'no such route' }),
  );
};

/** Not encapsulated: the handlers answer for every route and every unknown URL. */
export default fp(errorHandler, { name: 'error-handler' });

/** An error with a status and extra response headers (e.g. Retry-After), handled above. */
export function httpError(statusCode: number, message: string, headers?: Record<string, string>): FastifyError {
  return Object.assign(new Error(message), {
    statusCode,
    headers,
    code: `TLSRUM_${statusCode}`,
  }) as unknown as FastifyError;
}
