import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ControllerConfig } from '../config.js';
import { createContext, systemClock, type ControllerContext } from '../platform/context.js';
import { createLogger } from '../logger.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { lockDataFolder } from '../store/data-folder.js';
import { buildServer, type ServerParts } from './http-server.js';
import { resolveTlsIdentity, type TlsIdentity } from './tls-identity.js';
import { bootstrapAdmin, type BootstrapResult } from '../auth/bootstrap-admin.js';
import { sweepIdleSessions } from '../auth/api-sessions.js';
import { installMfa } from '../mfa/install.js';
import { installPosture } from '../access/install.js';
import { startDeadlineTakeover } from '../access/engine/deadline-takeover.js';
import type { PostureEngine } from '../access/engine/posture-engine.js';
import { AccessOutbox } from '../events/access-outbox.js';
import { PgAccessOutbox } from '../events/pg-access-outbox.js';
import { installEventDelivery } from '../webhooks/install-event-delivery.js';
import { startAuditRetention } from '../audit/audit-retention.js';
import { SharedRouterPresence } from '../edge-routers/link/shared-presence.js';
import { PgStore } from '../store/postgres/pg-store.js';
import { PgLimiterStore } from '../platform/limits/pg-limiter-store.js';
import { memoryLimiters } from '../platform/limits/memory-failure-counters.js';
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
  // The lock needs the folder; opening the store makes it and its files private.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // One controller per SQLite file: two would each trust their own caches and grant what policy forbids. On
  // PostgreSQL several controllers share the database (and may share the folder's keys).
  const unlock = config.database ? () => undefined : lockDataFolder(config.dataDir);
  let store: SqliteStore | PgStore;
  try {
    store = config.database ? await PgStore.open(config.database) : SqliteStore.open(config.dataDir);
  } catch (err) {
    unlock();
    throw err;
  }
  // On PostgreSQL the attempt limits are counted in the database: guesses spread over instances count once.
  const limiters = store instanceof PgStore ? PgLimiterStore.beside(store.pool) : memoryLimiters;
  const log = createLogger(config.logLevel, options.logDestination);
  const ctx = createContext(config, store, log, systemClock, limiters);
  // What has started so far, stopped again if a later step fails (a listening connection would keep the
  // database pool, and the process, from ending).
  const started: { close(): unknown }[] = [limiters];
  try {
    const outbox = await startOutbox(store, ctx);
    started.push(outbox);
    const mfa = await installMfa(ctx);
    started.push(mfa);
    // Webhooks and syslog: what committed before this start and is still queued goes out now.
    const deliveries = installEventDelivery(ctx);
    started.push(deliveries);
    const posture = installPosture(ctx);
    started.push(posture);
    await posture.started;
    // Instances sharing a PostgreSQL database enforce the posture deadlines of one that stopped (on SQLite
    // there is no other instance: the start-up pass above re-armed everything).
    const takeover = store instanceof PgStore ? startDeadlineTakeover(ctx, posture.engine) : undefined;
    if (takeover) started.push(takeover);
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
    const presence =
      store instanceof PgStore
        ? new SharedRouterPresence(store.pool, store.instanceId, routers.links, ctx)
        : undefined;
    parts.edgeRouters.followLinks(presence ?? routers.links);
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
      parts,
      app,
      bootstrap,
      async close() {
        clearInterval(sweeper);
        retention.close();
        await presence?.close();
        routers.close();
        await app.close();
        await takeover?.close();
        posture.close();
        mfa.close();
        await deliveries.close();
        await outbox.close();
        await store.close();
        await limiters.close();
        unlock();
      },
    };
  } catch (err) {
    for (const part of started.reverse()) await part.close();
    await store.close();
    unlock();
    throw err;
  }
}

/**
 * The access outbox's delivery: on SQLite after this process's own commits; on PostgreSQL whatever instance
 * committed, heard through LISTEN/NOTIFY.
 */
async function startOutbox(
  store: SqliteStore | PgStore,
  ctx: ControllerContext,
): Promise<{ close(): unknown }> {
  if (store instanceof SqliteStore) return new AccessOutbox(store.db, ctx);
  const outbox = new PgAccessOutbox(store.pool, ctx, {
    // Another instance's change re-decides the sessions this one granted and resyncs the routers linked here,
    // as the change would have had it been made here.
    onCatalogueChange: (announcedBy) => {
      if (store.catalogueChanged(announcedBy)) ctx.events.emit('policy.changed', 'elsewhere');
    },
    // What another instance changed is dropped from this one's caches; none answers while this cannot hear.
    onCacheNotice: (payload) => store.caches.heard(payload),
    onListening: (up) => store.caches.setListening(up),
  });
  await outbox.start();
  // This instance's own revocations go out before the request that made them is answered, as on SQLite.
  store.db.onOutboxWrite(() => outbox.catchUp());
  return outbox;
}
