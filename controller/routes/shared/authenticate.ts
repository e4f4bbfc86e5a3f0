import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ControllerContext } from '../../context.js';
import type { Authenticator, Identity } from '../../model.js';
import { createApiSession } from '../../auth/api-sessions.js';
import { decoyHash, verifyPassword } from '../../auth/passwords.js';
import { GateFull } from '../../auth/work-gate.js';
import { safeForLog } from '../../logger.js';
import { ApiError, invalidAuth, rateLimited } from '../../http/api-error.js';
import { detail } from '../../http/envelope.js';
import { detailEnvelope, errorResponses } from '../../http/schemas.js';
import { SESSION_HEADER } from '../../auth/guard.js';
import { CurrentApiSessionDetail, currentSessionToWire, sessionHeaders } from './session-view.js';

const Info = (fields: string[]) =>
  Type.Object(Object.fromEntries(fields.map((f) => [f, Type.Optional(Type.String({ maxLength: 255 }))])), {
    additionalProperties: true,
  });
const AuthenticateBody = Type.Object(
  {
    username: Type.String({ minLength: 4, maxLength: 100 }),
    password: Type.String({ minLength: 5, maxLength: 100 }),
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

/** POST /authenticate?method=password: a new API session for a username and password. */
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
      if (method !== 'password') {
        throw new ApiError(
          400,
          'INVALID_AUTH_METHOD',
          `Authentication method '${method}' is not supported; use password`,
          {
            field: 'method',
            reason: 'must be password',
            value: method,
          },
        );
      }
      const body = request.body as {
        username: string;
        password: string;
        envInfo?: object;
        sdkInfo?: object;
        configTypes?: string[];
      };
      // Both the account and the address are limited, so neither guessing one password across many
      // accounts nor many passwords for one account gets far.
      // Each attempt holds its place before the hash is computed, so parallel requests share the limit.
      const { account, address } = ctx.loginLimiters;
      const refused = () =>
        rateLimited(
          Math.max(account.retryAfterMs(body.username), address.retryAfterMs(request.ip), 1000) / 1000,
        );
      if (!account.reserve(body.username)) throw refused();
      if (!address.reserve(request.ip)) {
        account.settle(body.username, false);
        throw refused();
      }
      // A sign-in the gate turned away was never tried: it gives its place back without counting.
      let outcome: 'failed' | 'busy' | 'passed' = 'failed';
      let found: { authenticator: Authenticator; identity: Identity } | undefined;
      try {
        const authenticator = ctx.store.authenticators.getByUsername(body.username);
        // An unknown username costs the same hashing as a known one, so timing does not reveal accounts.
        const stored = authenticator?.passwordHash ?? (await decoyHash());
        const valid = await ctx.passwordHashing
          .run(() => verifyPassword(body.password, stored))
          .catch((err: unknown) => {
            if (!(err instanceof GateFull)) throw err;
            outcome = 'busy';
            throw rateLimited(1, 'Too many sign-ins at once');
          });
        const identity = authenticator && ctx.store.identities.get(authenticator.identityId);
        if (!valid || !authenticator || !identity || identity.disabled) {
          request.log.info(
            { username: safeForLog(body.username), ip: request.ip },
            'password authentication failed',
          );
          throw invalidAuth();
        }
        found = { authenticator, identity };
        outcome = 'passed';
      } finally {
        account.settle(body.username, outcome === 'failed');
        address.settle(request.ip, outcome === 'failed');
      }
      const { authenticator, identity } = found;
      account.recordSuccess(body.username);

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
