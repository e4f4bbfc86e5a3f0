import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ControllerContext } from '../../context.js';
import { createApiSession } from '../../auth/api-sessions.js';
import { checkPassword } from '../../auth/password-check.js';
import { checkCertificate } from '../../auth/cert-check.js';
import { enrollmentAuthorityOf } from '../../enrollment/enrollment-authority.js';
import { ApiError, validationError } from '../../http/api-error.js';
import { detail } from '../../http/envelope.js';
import { detailEnvelope, errorResponses, freeForm } from '../../http/schemas.js';
import { SESSION_HEADER } from '../../auth/guard.js';
import { CurrentApiSessionDetail, currentSessionToWire, sessionHeaders } from './session-view.js';

const Info = (fields: string[]) =>
  Type.Object(Object.fromEntries(fields.map((f) => [f, Type.Optional(Type.String({ maxLength: 255 }))])), {
    additionalProperties: true,
    ...freeForm(32, 4096),
  });
// username and password are required for method=password (checked there); cert sign-in needs neither.
const AuthenticateBody = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 4, maxLength: 100 })),
    password: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    envInfo: Type.Optional(Info(['os', 'arch', 'osRelease', 'osVersion', 'domain', 'hostname'])),
    sdkInfo: Type.Optional(Info(['type', 'branch', 'version', 'revision', 'appId', 'appVersion'])),
    configTypes: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
  },
  { additionalProperties: true },
);
const AuthenticateQuery = Type.Object({ method: Type.String() });

const stringsOnly = (o: Record<string, unknown> | undefined) =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;

/**
 * POST /authenticate?method=password (a username and password) or ?method=cert (the client certificate the
 * HTTPS connection presented, issued at enrollment): a new API session, partial while TOTP is owed.
 */
export function registerAuthenticate(app: FastifyInstance, ctx: ControllerContext): void {
  app.post(
    '/authenticate',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Authentication'],
        querystring: AuthenticateQuery,
        body: AuthenticateBody,
        response: { 200: detailEnvelope(CurrentApiSessionDetail), ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { method } = request.query as { method: string };
      if (method !== 'password' && method !== 'cert') {
        throw new ApiError(
          400,
          'INVALID_AUTH_METHOD',
          `Authentication method '${method}' is not supported; use password or cert`,
          {
            field: 'method',
            reason: 'must be password or cert',
            value: method,
          },
        );
      }
      const body = (request.body ?? {}) as {
        username?: string;
        password?: string;
        envInfo?: object;
        sdkInfo?: object;
        configTypes?: string[];
      };
      const { authenticator, identity } =
        method === 'cert'
          ? checkCertificate(ctx, enrollmentAuthorityOf(ctx).ca, request.raw.socket, request.log)
          : await checkPassword(
              ctx,
              required(body.username, 'username'),
              required(body.password, 'password'),
              {
                ip: request.ip,
                log: request.log,
              },
            );

      const { session, token } = createApiSession(ctx, {
        identity,
        authenticatorId: authenticator.id,
        ipAddress: request.ip,
        envInfo: stringsOnly(body.envInfo as Record<string, unknown>),
        sdkInfo: stringsOnly(body.sdkInfo as Record<string, unknown>),
        configTypes: body.configTypes ?? [],
      });
      request.log.info({ identityId: identity.id, apiSessionId: session.id }, 'API session created');
      return reply
        .header(SESSION_HEADER, token)
        .headers(sessionHeaders(ctx, session))
        .send(detail(currentSessionToWire(ctx, session, identity, token)));
    },
  );
}

function required(value: string | undefined, field: string): string {
  if (value === undefined) throw validationError([{ field, reason: 'is required' }]);
  return value;
}
