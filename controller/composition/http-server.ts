import { answerTogether } from '../http/answers-together.js';
import { lazyRequestLogger } from '../http/lazy-request-logger.js';
import { UNSTORABLE_REASON, unstorableFieldOf } from '../http/unstorable-text.js';
import { validationError } from '../api-error.js';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import type { ControllerContext } from '../platform/context.js';
import { installGuard } from '../auth/guard.js';
import { registerErrorHandling } from '../http/error-handler.js';
import { apiDocument, documentTypedBodies } from './openapi-documents.js';
import { validatorCompiler } from '../http/validation.js';
import { typed, type Api } from '../http/typed-app.js';
import { registerJsonBodyParser } from '../http/json-body.js';
import { cleanApiPath } from '../http/api-path.js';
import { errorEnvelope } from '../http/envelope.js';
import {
  BODY_LIMIT,
  connectionOptions,
  headersTimeoutMs,
  type ServerTls,
} from '../http/connection-limits.js';
import { registerVersion } from '../http/version-route.js';
import { FdBudget } from '../http/fd-budget.js';
import { RefusalLog } from '../http/refusal-log.js';
import { installDescriptorReserve } from '../http/descriptor-reserve.js';
import { EventStreamCaps } from '../access/agent-events/event-stream-caps.js';
import { registerAuthenticate } from '../auth/authenticate-route.js';
import { registerCurrentSession } from '../auth/current-session-routes.js';
import { registerCurrentIdentity } from '../identities/current-identity-route.js';
import type { ControllerCa } from '../platform/keys/controller-ca.js';
import type { MfaService } from '../mfa/mfa-service.js';
import { registerManagementRoutes, type ManagementParts } from './management-routes.js';
import type { AccessService } from '../access/access-service.js';
import type { PostureReports } from '../access/reports/report-ingest.js';
import { POSTERN_VERSION } from '../version.js';
import { registerMfaManagementRoutes, registerMfaSharedRoutes } from '../mfa/install.js';
import { registerPostureClientRoutes, registerPostureManagementRoutes } from '../access/install.js';
import { registerAgentEvents } from '../access/agent-events/agent-events-route.js';
import { registerRouterClientRoutes } from '../edge-routers/router-client-routes.js';
import { registerEnrollRoutes } from '../enrollment/enroll-routes.js';
import { registerEnrollmentRoutes } from '../enrollment/enrollment-routes.js';
import { registerReEnroll } from '../identities/re-enroll-route.js';
import { registerIdentityImport } from '../enrollment/identity-import.js';
import { registerConsole } from '../console/console-routes.js';
import { registerEstCaCerts } from '../enrollment/est-cacerts-route.js';
import { defaultConsoleDir } from '../console/console-build.js';
import { registerZac } from '../console/zac-routes.js';
import { installCors } from '../http/cors.js';
import { registerSummary } from '../informational/summary-route.js';
import {
  FABRIC_ABSENT_LISTS,
  MANAGEMENT_ABSENT_LISTS,
  registerAbsentLists,
} from '../informational/absent-lists.js';
import type { ExternalJwtSignIn } from '../external-jwt/ext-jwt-sign-in.js';
import { registerClientExternalJwtSigners } from '../external-jwt/signer-routes.js';
import { signerOrigins } from '../external-jwt/signer-origins.js';

export const CLIENT_PREFIX = '/edge/client/v1';
export const MANAGEMENT_PREFIX = '/edge/management/v1';
/** OpenZiti's fabric API: only the lists its console reads, empty (informational/absent-lists.ts) */
export const FABRIC_PREFIX = '/fabric/v1';
const SERVER_HEADER = `postern-controller/${POSTERN_VERSION}`;

/** The controller's parts whose endpoints the server serves, made once at composition (start-controller.ts). */
export interface ServerParts extends ManagementParts {
  /** the CA whose certificates sign in (certificate authentication) */
  ca: ControllerCa;
  mfa: MfaService;
  /** access's use cases: the routes that grant sessions, list services and end sessions call it */
  access: AccessService;
  /** posture reports stored and their identity re-evaluated */
  reports: PostureReports;
  /** sign-in with a token from an external JWT signer (an OpenID provider) */
  externalSignIn: ExternalJwtSignIn;
}

/** Routes both APIs serve (authentication and the caller's own session and identity). */
function registerShared(
  app: Api,
  ctx: ControllerContext,
  parts: ServerParts,
  api: 'client' | 'management',
): void {
  registerVersion(typed(app));
  registerAuthenticate(app, ctx, parts.ca, parts.externalSignIn);
  registerCurrentSession(app, ctx);
  registerCurrentIdentity(app, ctx, api, parts.enrollment);
  registerMfaSharedRoutes(app, parts.mfa);
}

/** The controller's HTTP server: the client API, the management API, /version and the OpenAPI document. */
export async function buildServer(
  ctx: ControllerContext,
  parts: ServerParts,
  tls?: ServerTls,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log,
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: BODY_LIMIT,
    genReqId: () => randomUUID(),
    // Ids may be up to 255 characters (IdParams); the router's default of 100 would answer before validation.
    routerOptions: { maxParamLength: 512 },
    // `…/identities/<id>//` as OpenZiti's console asks for it reaches `…/identities/<id>` (see api-path.ts).
    rewriteUrl: (request) => cleanApiPath(request.url ?? '/'),
    // Router-level failures (a malformed URL, say) get the same OpenZiti envelope as everything else.
    frameworkErrors: (error, request, reply) => {
      void (reply as FastifyReply).status(400).send(
        errorEnvelope({
          code: 'INVALID_REQUEST',
          message: 'The request URL could not be understood',
          cause: { field: 'url', reason: error.message },
          requestId: request.id,
        }),
      );
    },
    // Off by default: a client could otherwise pick its own address and slip past the per-address limits.
    trustProxy: ctx.config.trustProxy,
    ...connectionOptions(ctx.config, tls),
  }) as unknown as FastifyInstance;
  app.server.headersTimeout = headersTimeoutMs(ctx.config);
  // First: a preflight is answered before anything asks for credentials it never carries.
  installCors(app, ctx.config.corsOrigins ?? []);
  // File descriptors are finite: event streams stop first, then other requests, before sign-in and admin.
  const descriptors = new FdBudget();
  const refusals = new RefusalLog(ctx.log);
  installDescriptorReserve(app, descriptors, refusals);
  const eventStreams = new EventStreamCaps(descriptors, refusals);
  registerJsonBodyParser(app);
  app.setValidatorCompiler(validatorCompiler);
  // Both APIs speak JSON only; any other body type is a 415, not a confusing validation error.
  app.removeContentTypeParser('text/plain');
  registerErrorHandling(app);
  // After validation, so a field whose schema already refuses control characters says so in its own words;
  // this catches the rest (a tag's value, a filter, an id) before anything reaches the store.
  // Both hooks answer through `done`, not a promise: they run on every request and wait for nothing.
  app.addHook('preHandler', (request, _reply, done) => {
    const field = unstorableFieldOf(request);
    done(field === undefined ? undefined : validationError([{ field, reason: UNSTORABLE_REASON }]));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('server', SERVER_HEADER);
    done(null, payload);
  });
  answerTogether(app);

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Postern controller',
        version: POSTERN_VERSION,
        description: 'OpenZiti-compatible client and management APIs',
      },
      components: { securitySchemes: { ztSession: { type: 'apiKey', in: 'header', name: 'zt-session' } } },
      security: [{ ztSession: [] }],
    },
    transformObject: (document) =>
      documentTypedBodies(
        ('openapiObject' in document ? document.openapiObject : document.swaggerObject) as never,
        MANAGEMENT_PREFIX,
        CLIENT_PREFIX,
      ) as never,
  });

  registerVersion(typed(app));
  const publicDoc = { config: { access: 'public' as const }, schema: { hide: true } };
  app.get('/openapi.json', publicDoc, async () => app.swagger());
  // Where OpenZiti's clients look for each API's own description.
  for (const [prefix, title] of [
    [CLIENT_PREFIX, 'Postern edge client API'],
    [MANAGEMENT_PREFIX, 'Postern edge management API'],
  ] as const)
    app.get(`${prefix}/swagger.json`, publicDoc, async () =>
      apiDocument(app.swagger() as never, prefix, title),
    );

  await app.register(
    async (scope) => {
      const api = typed(scope);
      installGuard(api, ctx, 'full');
      registerShared(api, ctx, parts, 'client');
      registerPostureClientRoutes(api, ctx, parts, parts.edgeRouters);
      registerAgentEvents(api, ctx, eventStreams);
      registerRouterClientRoutes(api, ctx, parts.edgeRouters);
      registerEnrollRoutes(api, ctx, parts.enrollment);
      registerClientExternalJwtSigners(api, ctx);
    },
    { prefix: CLIENT_PREFIX },
  );
  await app.register(
    async (scope) => {
      const api = typed(scope);
      installGuard(api, ctx, 'admin');
      registerShared(api, ctx, parts, 'management');
      registerManagementRoutes(api, ctx, parts);
      registerPostureManagementRoutes(api, ctx, parts.catalogue);
      registerMfaManagementRoutes(api, ctx, parts.mfa);
      registerEnrollmentRoutes(api, ctx, parts.enrollment);
      registerReEnroll(api, ctx, parts.enrollment, parts.authenticators);
      registerIdentityImport(api, ctx, parts.enrollment);
      registerSummary(api, ctx);
      // Last, so a list another part serves (single sign-on's signers) is left to it.
      registerAbsentLists(api, MANAGEMENT_PREFIX, MANAGEMENT_ABSENT_LISTS, 'Informational');
    },
    { prefix: MANAGEMENT_PREFIX },
  );
  await app.register(
    async (scope) => {
      const api = typed(scope);
      installGuard(api, ctx, 'admin');
      registerAbsentLists(api, FABRIC_PREFIX, FABRIC_ABSENT_LISTS, 'Fabric');
    },
    { prefix: FABRIC_PREFIX },
  );
  registerEstCaCerts(app, parts.enrollment);
  // The administrators' web console, a static page that uses the management API above like any script.
  registerConsole(app, {
    dir: ctx.config.consoleDir ?? defaultConsoleDir(),
    providerOrigins: () => signerOrigins(ctx),
  });
  // OpenZiti's console on the same origin, as OpenZiti's `zac` web binding serves it (--zac).
  if (ctx.config.zacDir) registerZac(app, ctx.config.zacDir);
  return app;
}
