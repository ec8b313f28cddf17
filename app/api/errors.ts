import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import type { ValidationIssue } from '../../shared/schemas/errors.schema.ts';
import { QUERY_CANCELED } from '../store/database.ts';
import { WriteConflictError } from '../store/repository-transaction.ts';

/** An answer other than success, with the documented body (docs/api.md, "Errors"). */
export class HttpError extends Error {
  constructor(
    readonly statusCode: 400 | 403 | 404 | 409 | 503,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export class ValidationError extends Error {
  readonly statusCode = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'ValidationError';
  }
}

export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail: string) => new HttpError(404, detail);

const locationNames: Record<string, string> = {
  querystring: 'query',
  params: 'path',
  body: 'body',
  headers: 'header',
};

function validationIssues(error: FastifyError): ValidationIssue[] {
  const where = locationNames[error.validationContext ?? 'body'] ?? 'body';
  if (hasZodFastifySchemaValidationErrors(error)) {
    return error.validation.map((v) => ({
      loc: [
        where,
        ...v.instancePath
          .split('/')
          .filter((p) => p !== '')
          .map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
      ],
      msg: v.message ?? 'invalid value',
      type: v.keyword,
    }));
  }
  // Fastify's own validation, e.g. an unparseable JSON body or a wrong content type.
  return [{ loc: [where], msg: error.message, type: error.code ?? 'invalid' }];
}

/** Fastify error codes that mean the client sent something we cannot read: all are 422s. */
const clientErrorCodes = new Set([
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_BODY_TOO_LARGE',
  'FST_ERR_CTP_INVALID_JSON_BODY',
]);

export function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof HttpError) {
    if (error.statusCode === 403) reply.header('WWW-Authenticate', 'Bearer');
    const body: Record<string, string> = { detail: error.detail };
    if (error.statusCode >= 500) body['request_id'] = request.id;
    // A 503 is a passing condition (GitHub unreachable, too many checks waiting): say when to retry.
    if (error.statusCode === 503) reply.header('Retry-After', '5');
    return reply.code(error.statusCode).send(body);
  }
  if (error instanceof WriteConflictError) return reply.code(409).send({ detail: error.message });
  if (error instanceof ValidationError) return reply.code(422).send({ detail: error.issues });
  if (error.validation) return reply.code(422).send({ detail: validationIssues(error) });
  if (error.code && clientErrorCodes.has(error.code)) {
    return reply.code(422).send({
      detail: [{ loc: ['body'], msg: error.message, type: error.code }],
    });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    // Other client errors Fastify detects itself (e.g. a malformed URL).
    return reply
      .code(422)
      .send({ detail: [{ loc: ['request'], msg: error.message, type: error.code ?? 'invalid' }] });
  }
  if ((error as { code?: unknown }).code === QUERY_CANCELED) {
    // statement_timeout on the API's reads: the request asked more than its time budget.
    request.log.warn({ err: error }, 'request cancelled: over its time budget');
    return reply.code(503).header('Retry-After', '5').send({
      detail: `the request needed more database time than a request may use; narrow the period or the filters, or retry later`,
      request_id: request.id,
    });
  }
  if (isResponseSerializationError(error)) {
    request.log.error({ err: error, issues: error.cause.issues }, 'response does not match its schema');
  } else {
    request.log.error({ err: error }, 'request failed');
  }
  return reply.code(500).send({ detail: 'internal error', request_id: request.id });
}
