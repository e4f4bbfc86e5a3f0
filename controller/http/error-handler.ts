import { UNKNOWN_FIELD_REASON } from './unknown-nested-fields.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../api-error.js';
import { errorEnvelope } from './envelope.js';
import { pointerToField } from '../field-path.js';
import { UniqueViolation } from '../store/repository.js';
import { schemaIssueInWords } from './validation-words.js';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** the schema holding the failed keyword (the validators run verbose) */
  parentSchema?: { 'x-reasons'?: Record<string, string> };
}

/** Fastify's own failures (schema, parsing, size) rendered as OpenZiti errors, never as 5xx. */
/** What the route asked of a body: its size limit and the media types it reads. */
interface BodyRules {
  limit: number;
  consumes: readonly string[];
}

function bodyRulesOf(request: FastifyRequest, serverLimit: number): BodyRules {
  const { bodyLimit, schema } = request.routeOptions;
  const consumes = (schema as { consumes?: unknown } | undefined)?.consumes;
  return {
    limit: bodyLimit ?? serverLimit,
    consumes: Array.isArray(consumes) && consumes.length > 0 ? consumes.map(String) : ['application/json'],
  };
}

function sizeInWords(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * A union of literals (`type`: User, Device, …) fails every branch with its own `const` issue, and the first
 * alone reads "must be equal to constant": the allowed values, listed, say what to send instead.
 */
function literalChoices(issues: readonly AjvIssue[], first: AjvIssue): string | undefined {
  if (first.keyword !== 'const') return undefined;
  const allowed = issues
    .filter((i) => i.keyword === 'const' && i.instancePath === first.instancePath)
    .map((i) => i.params.allowedValue)
    .filter((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
  return allowed.length > 1 ? allowed.map(String).join(', ') : undefined;
}

function fromFastifyError(
  error: FastifyError & { validation?: AjvIssue[]; validationContext?: string },
  body: BodyRules,
): ApiError {
  if (error.validation) {
    const issue = error.validation[0]!;
    const named =
      issue.keyword === 'required'
        ? String(issue.params.missingProperty)
        : issue.keyword === 'additionalProperties'
          ? String(issue.params.additionalProperty)
          : undefined;
    let field = pointerToField(issue.instancePath, named);
    if (!field) field = error.validationContext === 'body' ? 'body' : (error.validationContext ?? 'request');
    const choices = literalChoices(error.validation, issue);
    const reason =
      issue.keyword === 'required'
        ? 'is required'
        : issue.keyword === 'additionalProperties'
          ? UNKNOWN_FIELD_REASON
          : choices
            ? `must be one of ${choices}`
            : (issue.parentSchema?.['x-reasons']?.[issue.keyword] ?? schemaIssueInWords(issue));
    return validationError([{ field, reason, value: undefined }]);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(
        400,
        'COULD_NOT_PARSE_BODY',
        'The body of the request could not be parsed as JSON',
        {
          field: 'body',
          reason: error.message,
        },
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        413,
        'BODY_TOO_LARGE',
        `The request body is larger than this route's limit of ${sizeInWords(body.limit)}`,
        { field: 'body', reason: `exceeds ${body.limit} bytes` },
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const types = body.consumes.join(' or ');
      return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `This route's request body must be ${types}`, {
        field: 'content-type',
        reason: `must be ${types}`,
      });
    }
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, 'INVALID_REQUEST', error.message, {
      field: 'request',
      reason: error.message,
    });
  }
  return new ApiError(500, 'UNHANDLED', 'An unhandled error occurred');
}

export function registerErrorHandling(app: FastifyInstance): void {
  const serverLimit = app.initialConfig.bodyLimit ?? 1024 * 1024;
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let apiError: ApiError;
    if (error instanceof ApiError) apiError = error;
    else if (error instanceof UniqueViolation)
      apiError = validationError([
        { field: error.field, reason: 'must be unique; another entity already uses it', value: error.value },
      ]);
    else apiError = fromFastifyError(error, bodyRulesOf(request, serverLimit));
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    void reply
      .status(apiError.status)
      .headers(apiError.headers)
      .send(
        errorEnvelope({
          code: apiError.code,
          message: apiError.message,
          cause: apiError.cause,
          requestId: request.id,
          // Any route's error lands here, so its params have no one schema: path parameters are strings.
          urlVars: (request.params as Record<string, string>) ?? {},
        }),
      );
  });

  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(
      errorEnvelope({
        code: 'NOT_FOUND',
        message: `No route ${request.method} ${request.url.split('?')[0]}`,
        requestId: request.id,
      }),
    );
  });
}
