import { mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ControllerConfig } from './config.js';
import { createContext, type ControllerContext } from './context.js';
import { createLogger } from './logger.js';
import { SqliteStore } from './store/sqlite-store.js';
import { lockDataFolder } from './store/data-folder.js';
import { buildServer } from './server.js';
import { resolveTlsIdentity, type TlsIdentity } from './tls-identity.js';
import { bootstrapAdmin, type BootstrapResult } from './auth/bootstrap-admin.js';
import { sweepIdleSessions } from './auth/api-sessions.js';
import { installMfa } from './mfa/install.js';
import { installPosture } from './posture/install.js';
import { AccessOutbox } from './events/access-outbox.js';
import { startRouterFeed } from './router-link/router-feed.js';
import { createRouterDirectory } from './router-link/router-directory.js';
import { installEnrollment } from './enrollment/enrollment-authority.js';

export interface RunningController {
  url: string;
  /** undefined: plain HTTP (loopback only) */
  tls: TlsIdentity | undefined;
  ctx: ControllerContext;
  app: FastifyInstance;
  bootstrap: BootstrapResult;
  close(): Promise<void>;
}

const SWEEP_INTERVAL_MS = 60_000;

/** Opens the store, creates the admin on first start, and serves both APIs until `close()`. */
export async function startController(
  config: ControllerConfig,
  options: { adminPassword?: string; logDestination?: NodeJS.WritableStream } = {},
): Promise<RunningController> {
  // The lock needs the folder; opening the store makes it and its files private.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const unlock = lockDataFolder(config.dataDir);
  let store: SqliteStore;
  try {
    store = SqliteStore.open(config.dataDir);
  } catch (err) {
    unlock();
    throw err;
  }
  const ctx = createContext(config, store, createLogger(config.logLevel, options.logDestination));
  try {
    const outbox = new AccessOutbox(store.db, ctx);
    const mfa = await installMfa(ctx);
    const posture = installPosture(ctx);
    await posture.started;
    const bootstrap = await bootstrapAdmin(ctx, options.adminPassword);
    const enrollment = await installEnrollment(ctx);
    const tls = await resolveTlsIdentity(config);
    // Clients may present a certificate from the controller's CA (certificate sign-in); none is required.
    const clientCerts = { ca: enrollment.ca.certPem, requestCert: true, rejectUnauthorized: false };
    const app = await buildServer(ctx, tls && { key: tls.key, cert: tls.cert, ...clientCerts });
    await app.listen({ host: config.host, port: config.port });
    const routers = startRouterFeed(app.server, ctx, createRouterDirectory(ctx));
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const scheme = tls ? 'https' : 'http';
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    enrollment.setEndpoint(`${scheme}://${host}:${port}`, tls);
    const sweeper = setInterval(() => {
      sweepIdleSessions(ctx).catch((err: unknown) => ctx.log.error({ err }, 'idle session sweep failed'));
    }, SWEEP_INTERVAL_MS);
    sweeper.unref();
    return {
      url: `${scheme}://${host}:${port}`,
      tls,
      ctx,
      app,
      bootstrap,
      async close() {
        clearInterval(sweeper);
        routers.close();
        await app.close();
        posture.close();
        mfa.close();
        outbox.close();
        await store.close();
        unlock();
      },
    };
  } catch (err) {
    await store.close();
    unlock();
    throw err;
  }
}
