/**
 * The REST API's errors: one envelope, `{ "error": { "code", "field", "message" } }`, with codes
 * from the protocol's catalogue, which also gives each code its HTTP status. Handlers throw
 * `ApiError`s; `sendError` turns whatever was thrown — Fastify's own body, content-type and
 * validation errors included — into the envelope, so bad input never answers 500.
 */

import { type ErrorCode, ErrorCodes, isTickwheelError, TickwheelError } from '@tickwheel/protocol';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { isUnreachable } from '../store/wait-for-database.js';
import { ErrorEnvelope, LIMITS } from './schemas.js';

/** The envelope every error answer carries. `field` is absent when no single field is to blame. */
export interface ErrorBody {
  error: { code: ErrorCode; field?: string; message: string };
}

/**
 * An error the REST API answers as it is, with its code's status from the catalogue. A call site
 * passes `statusCode` only when the same code means another status there, and says why.
 *
 * @example
 * throw new ApiError('TW_ERR_EXECUTOR_CALL_FAILED', `reading the log from ${address} failed`); // 502
 */
export class ApiError extends TickwheelError {
  readonly statusCode: number;

  constructor(
    code: ErrorCode,
    message?: string,
    field?: string,
    statusCode: number = ErrorCodes[code].status,
  ) {
    super(code, message, field);
    this.name = 'ApiError';
    this.statusCode = statusCode;
  }
}

/** 400 naming the field and the reason, e.g. `invalidField('addressList', 'addressList[1]: must be an http(s) URL')`. */
export function invalidField(field: string, message: string): ApiError {
  return new ApiError('TW_ERR_INVALID_FIELD', message, field);
}

/** The resources whose missing ids have a code of their own; the others are TW_ERR_NOT_FOUND. */
const UNKNOWN_CODES: Readonly<Record<'job' | 'app', ErrorCode>> = {
  job: 'TW_ERR_UNKNOWN_JOB',
  app: 'TW_ERR_UNKNOWN_APP',
};

/**
 * 404 for a `what` named by the path that does not exist, or that the caller may not see (the
 * same answer, see `requireVisible`): `TW_ERR_UNKNOWN_JOB` for a job, `TW_ERR_UNKNOWN_APP` for
 * an app, `TW_ERR_NOT_FOUND` for anything else.
 */
export function notFound(what: string, id: number | string): ApiError {
  const code = what === 'job' || what === 'app' ? UNKNOWN_CODES[what] : 'TW_ERR_NOT_FOUND';
  return new ApiError(code, `${what} ${id} does not exist`);
}

/**
 * A job or app named by a body field that does not exist (or that the caller may not see), e.g.
 * `appId: app 7 does not exist`: its own code, but 400 instead of the catalogue's 404, since
 * the operation's target exists and it is this input that is wrong, named by `field` like any
 * other bad input.
 */
export function unknownInField(field: string, what: 'job' | 'app', id: number): ApiError {
  return new ApiError(UNKNOWN_CODES[what], `${field}: ${what} ${id} does not exist`, field, 400);
}

export function conflict(message: string, field?: string): ApiError {
  return new ApiError('TW_ERR_CONFLICT', message, field);
}

export function forbidden(message: string): ApiError {
  return new ApiError('TW_ERR_FORBIDDEN', message);
}

/**
 * 403 for a user who must change their password (`mustChangePassword`) before the API answers
 * them anything but `getCurrentUser`, `changePassword` and `logout`.
 */
export function passwordChangeRequired(username: string): ApiError {
  return new ApiError(
    'TW_ERR_PASSWORD_CHANGE_REQUIRED',
    `user ${username} must change their password before anything else (POST /api/v1/me/password)`,
  );
}

export function unauthenticated(message: string): ApiError {
  return new ApiError('TW_ERR_UNAUTHENTICATED', message);
}

/** A validation issue as Fastify hands it over from the TypeBox compiler (ajv's shape). */
interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

type FastifyValidationError = FastifyError & {
  validation: ValidationIssue[];
  validationContext?: string;
};

/** Maps anything thrown while serving a REST request to a status and the envelope. */
export function toErrorBody(err: unknown): { statusCode: number; body: ErrorBody } {
  if (err instanceof ApiError) return envelope(err.code, err.message, err.field, err.statusCode);
  // An error raised outside this module (a schedule, a wire parser) answers with its code's
  // status when that blames the request; a 5xx one is a fault of ours, answered as internal
  // (and logged) so its message, which may name a database or a host, stays in the log.
  if (isTickwheelError(err) && ErrorCodes[err.code].status < 500) {
    return envelope(err.code, err.message, err.field);
  }
  const fastifyError = err as Partial<FastifyValidationError>;
  if (Array.isArray(fastifyError.validation)) {
    return validationEnvelope(fastifyError.validation, fastifyError.validationContext ?? 'body');
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return envelope('TW_ERR_INVALID_JSON', `the body is not valid JSON: ${fastifyError.message}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return envelope('TW_ERR_INVALID_JSON', 'the body must be JSON (Content-Type: application/json)');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return envelope(
        'TW_ERR_BODY_TOO_LARGE',
        `the body is larger than the ${LIMITS.bodyBytes} bytes the REST API accepts`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return envelope('TW_ERR_INVALID_JSON', 'the body does not match its Content-Length');
  }
  if (err instanceof SyntaxError)
    return envelope('TW_ERR_INVALID_JSON', `the body is not valid JSON: ${err.message}`);
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Any other refusal of Fastify's keeps its own 4xx, which says more than the code can: the
    // catalogue has no code for each of them.
    return envelope(
      'TW_ERR_INVALID_FIELD',
      fastifyError.message ?? ErrorCodes.TW_ERR_INVALID_FIELD.message,
      undefined,
      status,
    );
  }
  // The database away (a restart, a failover, a network fault): the request may be tried again.
  if (isUnreachable(err)) {
    return envelope('TW_ERR_STORE_UNAVAILABLE', 'the database cannot be reached now; try again shortly');
  }
  return envelope('TW_ERR_INTERNAL', 'internal error; the server log has the details');
}

/** Fastify error handler for the REST API: logs server faults, answers the envelope. */
export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, body } = toErrorBody(err);
  if (statusCode >= 500) request.log.error({ err }, 'REST API request failed');
  // The database away: clients (the console, the CLI) may try again after a short wait.
  if (body.error.code === 'TW_ERR_STORE_UNAVAILABLE') reply.header('retry-after', '5');
  reply.code(statusCode).send(body);
}

/**
 * The not-found handler: an operation that does not exist answers 404 with the envelope, like a
 * resource that does not. The server's root handler too, so an unknown path under `/api/v1` that
 * the console's page fallback or the executor API's `/api/:call` hands over answers the same.
 */
export function sendUnknownRoute(request: FastifyRequest, reply: FastifyReply): void {
  sendError(
    new ApiError('TW_ERR_NOT_FOUND', `no operation ${request.method} ${request.url}`),
    request,
    reply,
  );
}

/** The envelope of `code`, answered with the code's status unless `statusCode` says otherwise. */
function envelope(
  code: ErrorCode,
  message: string,
  field?: string,
  statusCode: number = ErrorCodes[code].status,
): { statusCode: number; body: ErrorBody } {
  return {
    statusCode,
    body: { error: field === undefined || field === '' ? { code, message } : { code, field, message } },
  };
}

/**
 * The first validation issue, as a field and a sentence: `executorTimeout: must be integer`,
 * `scheduleType: must be one of NONE, CRON, FIX_RATE, FIX_DELAY, ONCE`, `name: is required`.
 */
function validationEnvelope(
  issues: ValidationIssue[],
  context: string,
): { statusCode: number; body: ErrorBody } {
  const issue = mostTelling(issues);
  if (issue === undefined) return envelope('TW_ERR_INVALID_FIELD', `the ${context} is invalid`);
  const base = fieldOf(issue.instancePath);
  const { keyword, params } = issue;
  if (keyword === 'required') {
    const missing =
      (params.requiredProperties as string[] | undefined)?.[0] ?? String(params.missingProperty ?? '');
    const field = join(base, missing);
    return envelope('TW_ERR_MISSING_FIELD', `${field}: is required`, field);
  }
  if (keyword === 'additionalProperties' || (keyword === 'boolean' && base !== '')) {
    const extra =
      keyword === 'boolean' ? base : join(base, String((params.additionalProperties as string[])?.[0]));
    return envelope('TW_ERR_INVALID_FIELD', `${extra}: is not a field of this ${context}`, extra);
  }
  const field = base === '' ? context : base;
  // A value outside an enumeration (a route strategy, a status filter) has a code of its own: a
  // client newer than the server meets it when it sends a value this server does not know yet.
  const code = keyword === 'enum' ? 'TW_ERR_UNKNOWN_ENUM_VALUE' : 'TW_ERR_INVALID_FIELD';
  return envelope(code, `${field}: ${reason(issue)}`, field);
}

/** Prefers the issue that says most: a missing or unknown field, then the deepest path. */
function mostTelling(issues: ValidationIssue[]): ValidationIssue | undefined {
  const byKeyword = (k: string) => issues.find((i) => i.keyword === k);
  return (
    byKeyword('required') ??
    byKeyword('additionalProperties') ??
    issues.find((i) => i.keyword !== 'anyOf') ??
    issues[0]
  );
}

function reason(issue: ValidationIssue): string {
  const { keyword, params } = issue;
  switch (keyword) {
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      return `must be ${(Array.isArray(params.type) ? params.type : [params.type]).map(withArticle).join(' or ')}`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters`;
    case 'minLength':
      return Number(params.limit) === 1
        ? 'must not be empty'
        : `must be at least ${String(params.limit)} characters`;
    case 'maximum':
      return `must be <= ${String(params.limit)}`;
    case 'minimum':
      return `must be >= ${String(params.limit)}`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    case 'uniqueItems':
      return 'must not repeat an item';
    case 'pattern':
      return `must match ${String(params.pattern)}`;
    default:
      return issue.message ?? 'is invalid';
  }
}

function withArticle(type: unknown): string {
  const name = String(type);
  if (name === 'null') return 'null';
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

/** `/addressList/1` → `addressList[1]`; `/a/b` → `a.b`. */
function fieldOf(instancePath: string): string {
  let out = '';
  for (const part of instancePath.split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    out = /^\d+$/.test(key) ? `${out}[${key}]` : join(out, key);
  }
  return out;
}

function join(base: string, key: string): string {
  return base === '' ? key : `${base}.${key}`;
}

const ERROR_DESCRIPTIONS = {
  400: 'Bad input: the field and the reason are named',
  401: 'No credentials, or wrong ones',
  403: 'Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED)',
  404: 'No such resource',
  409: 'Conflicts with the current state',
  413: 'The body is larger than 4 MiB',
  429: 'Too many failed sign-ins: wait the Retry-After seconds',
  502: 'The executor did not answer as it should',
} as const;

/** The error answers an operation documents (401 always), all with the envelope. */
export function errorResponses(...codes: Array<keyof typeof ERROR_DESCRIPTIONS>): Record<number, TSchema> {
  return Object.fromEntries(
    [401 as const, ...codes].map((code) => [
      code,
      { ...ErrorEnvelope, description: ERROR_DESCRIPTIONS[code] },
    ]),
  );
}
