import type { Api } from '../http/typed-app.js';
import { AuthenticateQuery } from '../../src/api/resources/sessions.js';
import type { ControllerContext } from '../platform/context.js';
import type { Identity } from '../model.js';
import { createApiSession } from './api-sessions.js';
import { recordFailedSignIn, recordSignIn } from '../audit/sign-ins.js';
import { checkPassword } from './password-check.js';
import { checkCertificate } from './cert-check.js';
import type { ControllerCa } from '../platform/keys/controller-ca.js';
import { ApiError, validationError } from '../api-error.js';
import { detail } from '../http/envelope.js';
import { detailEnvelope, errorResponses } from '../../src/api/resources/envelopes.js';
import { AuthenticateBodySchema } from '../../src/api/schemas.js';
import { SESSION_HEADER } from './guard.js';
import { CurrentApiSessionDetail, currentSessionToWire, sessionHeaders } from './session-view.js';
import type { ExternalJwtSignIn } from '../external-jwt/ext-jwt-sign-in.js';

const METHODS = ['password', 'cert', 'ext-jwt'];

// The body is the agent's too: one definition in src/api.
const AuthenticateBody = AuthenticateBodySchema;

const stringsOnly = (o: Record<string, unknown> | undefined) =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => typeof v === 'string')) as Record<
    string,
    string
  >;

/**
 * POST /authenticate?method=password (a username and password), ?method=cert (the client certificate the
 * HTTPS connection presented, issued at enrollment) or ?method=ext-jwt (a token from an external JWT signer as
 * `Authorization: Bearer`): a new API session, partial while TOTP is owed.
 */
export function registerAuthenticate(
  app: Api,
  ctx: ControllerContext,
  ca: ControllerCa,
  external: ExternalJwtSignIn,
): void {
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
      const { method } = request.query;
      if (!METHODS.includes(method)) {
        throw new ApiError(
          400,
          'INVALID_AUTH_METHOD',
          `Authentication method '${method}' is not supported; use password, cert or ext-jwt`,
          {
            field: 'method',
            reason: 'must be password, cert or ext-jwt',
            value: method,
          },
        );
      }
      const body = request.body ?? {};
      const { authorization } = request.headers;
      const signIn = async (): Promise<{ authenticatorId: string; identity: Identity }> => {
        if (method === 'ext-jwt') return external.signIn(authorization, request.log);
        const { authenticator, identity } =
          method === 'cert'
            ? await checkCertificate(ctx, ca, request.raw.socket, request.log)
            : await checkPassword(
                ctx,
                required(body.username, 'username'),
                required(body.password, 'password'),
                {
                  ip: request.ip,
                  log: request.log,
                },
              );
        await external.checkSecondFactor(identity, authorization, request.log);
        return { authenticatorId: authenticator.id, identity };
      };
      const signedIn = await signIn().catch(async (err: unknown) => {
        await recordFailedSignIn(ctx, request, err, { method, username: body.username });
        throw err;
      });
      const { identity } = signedIn;

      // The session and its sign-in event land together (audit/sign-ins.ts).
      const { session, token } = await ctx.store.transaction(async () => {
        const created = await createApiSession(ctx, {
          identity,
          authenticatorId: signedIn.authenticatorId,
          ipAddress: request.ip,
          envInfo: stringsOnly(body.envInfo),
          sdkInfo: stringsOnly(body.sdkInfo),
          configTypes: body.configTypes ?? [],
        });
        await recordSignIn(ctx, request, identity, { method, apiSessionId: created.session.id });
        return created;
      });
      request.log.info({ identityId: identity.id, apiSessionId: session.id }, 'API session created');
      return reply
        .header(SESSION_HEADER, token)
        .headers(sessionHeaders(ctx, session))
        .send(detail(await currentSessionToWire(ctx, session, identity, token)));
    },
  );
}

function required(value: string | undefined, field: string): string {
  if (value === undefined) throw validationError([{ field, reason: 'is required' }]);
  return value;
}
