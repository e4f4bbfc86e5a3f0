/**
 * The controller with its embedded edge router: what `npm run controller`, `npm start`, the demo and the
 * desktop app's bundled controller run. The two parts still talk only over the network, as a standalone
 * router would: the embedded router enrolls with a one-time token through the client API and links to the
 * controller's URL. Its folder is `<data-dir>/router`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { startController, type RunningController } from '../controller/composition/start-controller.js';
import type { ControllerConfig } from '../controller/config.js';
import { embeddedRouterName, embeddedRouterToken } from '../controller/edge-routers/embedded-router.js';
import { readRouterFiles } from '../edge-router/router-files.js';
import { startRouter, type RunningRouter } from '../edge-router/router.js';

export interface RouterBundleOptions {
  /** false: a controller for standalone routers only */
  enabled: boolean;
  /** the router's port; undefined: the one it had last time when free, else any free one */
  port?: number;
  graceSeconds: number;
}

export interface RunningBundle {
  controller: RunningController;
  router: RunningRouter | undefined;
  close(): Promise<void>;
}

export const DEFAULT_ROUTER_OPTIONS: RouterBundleOptions = { enabled: true, graceSeconds: 30 };

export async function startBundle(
  config: ControllerConfig,
  options: {
    adminPassword?: string;
    logDestination?: NodeJS.WritableStream;
    router?: RouterBundleOptions;
  } = {},
): Promise<RunningBundle> {
  const controller = await startController(config, options);
  const routerOptions = options.router ?? DEFAULT_ROUTER_OPTIONS;
  if (!routerOptions.enabled) return { controller, router: undefined, close: () => controller.close() };
  try {
    const router = await startEmbeddedRouter(controller, config, routerOptions, options.logDestination);
    const bundle: RunningBundle = {
      controller,
      router,
      async close() {
        await bundle.router?.close();
        await controller.close();
      },
    };
    return bundle;
  } catch (err) {
    await controller.close();
    throw err;
  }
}

async function startEmbeddedRouter(
  controller: RunningController,
  config: ControllerConfig,
  options: RouterBundleOptions,
  logDestination: NodeJS.WritableStream | undefined,
): Promise<RunningRouter> {
  const dataDir = join(config.dataDir, 'router');
  const known = readRouterFiles(dataDir)?.enrollment.edgeRouterId;
  // A token only when this folder holds no enrollment the controller still honours.
  const name = embeddedRouterName(controller.sharedStore, config.dataDir);
  const enrollToken = await embeddedRouterToken(controller.ctx, known, name);
  const portFile = join(dataDir, 'port');
  const lastPort = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) || 0 : 0;
  const log = pino(
    { level: config.logLevel, base: { role: 'router' } },
    logDestination ?? pino.destination(1),
  );
  const start = (port: number) =>
    startRouter({
      // Beside the controller: reached on loopback, where the name in the administrator's certificate (if it
      // has one) does not match; so the router trusts exactly the certificate its controller serves, pinned
      // by fingerprint, whether self-signed or issued by a private CA.
      controllerUrl: loopbackUrl(controller.url),
      controllerFingerprint: controller.tls?.fingerprint,
      dataDir,
      // Enrollment happens before listening: a retry on another port must not spend the token again.
      enrollToken: readRouterFiles(dataDir)?.enrollment.edgeRouterId === known ? enrollToken : undefined,
      host: config.host,
      port,
      graceMs: options.graceSeconds * 1000,
      log,
    });
  let router: RunningRouter;
  try {
    router = await start(options.port ?? lastPort);
  } catch (err) {
    // The remembered port was taken meanwhile: any free one will do (agents learn it from the controller).
    if ((err as { code?: string }).code !== 'EADDRINUSE' || options.port !== undefined || lastPort === 0)
      throw err;
    router = await start(0);
  }
  writeFileSync(portFile, new URL(router.url.replace('tls:', 'https:')).port, { mode: 0o600 });
  return router;
}

/** The controller's URL on this machine: a wildcard bind address is not an address to connect to. */
function loopbackUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}
