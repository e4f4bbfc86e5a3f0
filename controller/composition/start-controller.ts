import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ControllerConfig } from '../config.js';
import { createContext, systemClock, type ControllerContext } from '../platform/context.js';
import { createLogger } from '../logger.js';
import { openBackend } from '../backend/open-backend.js';
import { buildServer, type ServerParts } from './http-server.js';
import { resolveTlsIdentity, type TlsIdentity } from './tls-identity.js';
import { bootstrapAdmin, type BootstrapResult } from '../auth/bootstrap-admin.js';
import { sweepIdleSessions } from '../auth/api-sessions.js';
import { installMfa } from '../mfa/install.js';
import { installPosture } from '../access/install.js';
import type { PostureEngine } from '../access/engine/posture-engine.js';
import { installEventDelivery } from '../webhooks/install-event-delivery.js';
import { startAuditRetention } from '../audit/audit-retention.js';
import { startRouterFeed } from '../edge-routers/link/router-feed.js';
import { createRouterDirectory } from '../edge-routers/link/router-directory.js';
import { EdgeRouterService } from '../edge-routers/edge-router-service.js';
import { installEnrollment } from '../enrollment/enrollment-authority.js';
import { IdentityService } from '../identities/identity-service.js';
import { AuthenticatorService } from '../identities/authenticator-service.js';
import { CatalogueService } from '../catalogue/catalogue-service.js';
import { AuthPolicyService } from '../catalogue/auth-policy-service.js';
import { SignerKeys } from '../external-jwt/signer-keys.js';
import { ExternalJwtSignerService } from '../external-jwt/signer-service.js';
import { ExternalJwtSignIn } from '../external-jwt/ext-jwt-sign-in.js';
import { ConfigService } from '../catalogue/configs/config-service.js';

/**
 * The controller, composed here and nowhere else: the platform every module is handed (`ctx`: config, store,
 * log, clock, event bus, limits), the parts made from it once (`parts`), the HTTP server that serves their
 * endpoints, and one `close()` that stops them in reverse order.
 */
export interface RunningController {
  url: string;
  /** undefined: plain HTTP (loopback only) */
  tls: TlsIdentity | undefined;
  ctx: ControllerContext;
  /** other instances may share this controller's database (backend/store-backend.ts) */
  sharedStore: boolean;
  parts: ControllerParts;
  app: FastifyInstance;
  bootstrap: BootstrapResult;
  close(): Promise<void>;
}

/** The parts the controller is built from, beyond the platform: what its routes and timers were handed. */
export interface ControllerParts extends ServerParts {
  /** access decided as events arrive (the services above ask it; deadline takeover hands it expiries) */
  engine: PostureEngine;
}

const SWEEP_INTERVAL_MS = 60_000;

/** Opens the store, creates the admin on first start, and serves both APIs until `close()`. */
export async function startController(
  config: ControllerConfig,
  options: { adminPassword?: string; logDestination?: NodeJS.WritableStream } = {},
): Promise<RunningController> {
  // The folder holds the keys on every backend (and SQLite's file, which opening makes private with it).
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // The store, and what depends on whether other instances share its database (backend/store-backend.ts).
  const backend = await openBackend(config);
  const log = createLogger(config.logLevel, options.logDestination);
  const ctx = createContext(config, backend.store, log, systemClock, backend.limiters);
  // What has started so far, stopped again if a later step fails (a listening connection would keep the
  // database pool, and the process, from ending).
  const started: { close(): unknown }[] = [];
  try {
    // Delivered after this process's commits alone, or whichever instance sharing the database committed.
    const outbox = await backend.startOutbox(ctx);
    started.push(outbox);
    const mfa = await installMfa(ctx);
    started.push(mfa);
    // Webhooks and syslog: what committed before this start and is still queued goes out now.
    const deliveries = installEventDelivery(ctx);
    started.push(deliveries);
    const posture = installPosture(ctx);
    started.push(posture);
    await posture.started;
    // Instances sharing a database enforce the posture deadlines of one that stopped (alone on a database,
    // the start-up pass above re-armed everything).
    const takeover = backend.startDeadlineTakeover(ctx, posture.engine);
    started.push(takeover);
    const bootstrap = await bootstrapAdmin(ctx, options.adminPassword);
    const enrollment = await installEnrollment(ctx);
    const tls = await resolveTlsIdentity(config);
    // Clients may present a certificate from the controller's CA (certificate sign-in); none is required.
    const clientCerts = { ca: enrollment.ca.certPem, requestCert: true, rejectUnauthorized: false };
    const signerKeys = new SignerKeys(config.jwksCooldownMs);
    const identities = new IdentityService(ctx, enrollment);
    const parts: ControllerParts = {
      ca: enrollment.ca,
      mfa: mfa.service,
      engine: posture.engine,
      access: posture.access,
      reports: posture.reports,
      enrollment,
      identities,
      externalJwtSigners: new ExternalJwtSignerService(ctx, signerKeys),
      externalSignIn: new ExternalJwtSignIn(ctx, signerKeys, identities),
      authenticators: new AuthenticatorService(ctx),
      catalogue: new CatalogueService(ctx),
      authPolicies: new AuthPolicyService(ctx),
      configs: new ConfigService(ctx),
      edgeRouters: new EdgeRouterService(ctx),
      deliveries,
    };
    const app = await buildServer(ctx, parts, tls && { key: tls.key, cert: tls.cert, ...clientCerts });
    await app.listen({ host: config.host, port: config.port });
    const routers = startRouterFeed(app.server, ctx, createRouterDirectory(ctx, parts.edgeRouters));
    // Several instances: a router linked to another one is online too (shared-presence.ts).
    const presence = backend.routerPresence(routers.links, ctx);
    parts.edgeRouters.followLinks(presence);
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const scheme = tls ? 'https' : 'http';
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    enrollment.setEndpoint(`${scheme}://${host}:${port}`, tls);
    const retention = startAuditRetention(ctx, config.auditRetentionDays);
    const sweeper = setInterval(() => {
      sweepIdleSessions(ctx).catch((err: unknown) => ctx.log.error({ err }, 'idle session sweep failed'));
    }, SWEEP_INTERVAL_MS);
    sweeper.unref();
    return {
      url: `${scheme}://${host}:${port}`,
      tls,
      ctx,
      sharedStore: backend.shared,
      parts,
      app,
      bootstrap,
      async close() {
        clearInterval(sweeper);
        retention.close();
        await presence.close();
        routers.close();
        await app.close();
        await takeover.close();
        posture.close();
        mfa.close();
        await deliveries.close();
        await outbox.close();
        await backend.close();
      },
    };
  } catch (err) {
    for (const part of started.reverse()) await part.close();
    await backend.close();
    throw err;
  }
}
