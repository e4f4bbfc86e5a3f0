import type { FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../api-error.js';

/**
 * Postern's API accepts `{code}` in the body of `GET /current-identity/mfa/recovery-codes`. Fastify never
 * parses a GET body (and refuses a body schema on GET), so this one route reads it itself: small,
 * JSON, and only a string `code` is looked at. The `mfa-validation-code` header is the alternative
 * OpenZiti clients use, since many HTTP clients cannot send a body with GET at all.
 */
const GET_BODY_LIMIT = 4096;

export async function readCodeFromGetBody(request: FastifyRequest): Promise<string | undefined> {
  const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
  if (chunked === undefined && (length === undefined || length === '0')) return undefined;

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > GET_BODY_LIMIT) {
      throw new ApiError(
        413,
        'BODY_TOO_LARGE',
        `A GET body may hold at most ${GET_BODY_LIMIT} bytes`,
        {
          field: 'body',
          reason: `exceeds ${GET_BODY_LIMIT} bytes`,
          // The rest of the body is left unread, so this connection cannot carry another request.
        },
        { connection: 'close' },
      );
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;

  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'COULD_NOT_PARSE_BODY', 'The body of the request could not be parsed as JSON', {
      field: 'body',
      reason: 'not JSON',
    });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError([{ field: 'body', reason: 'must be object' }]);
  }
  const code = (body as { code?: unknown }).code;
  if (code !== undefined && (typeof code !== 'string' || code.length > 64)) {
    throw validationError([{ field: 'code', reason: 'must be a string of at most 64 characters' }]);
  }
  return code;
}
