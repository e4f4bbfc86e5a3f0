import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { PostureEngine } from './engine/posture-engine.js';
import { wirePostureEvents } from './engine/posture-events.js';
import { registerPostureManagement } from './reports/posture-data-routes.js';
import { registerAccessRoutes } from './http/access-routes.js';
import { registerOverviewRoutes } from './http/overview-routes.js';
import { registerPostureResponseRoutes } from './reports/posture-response-routes.js';
import { registerServiceRoutes } from './http/service-routes.js';
import { registerSessionRoutes } from './sessions/session-routes.js';

/**
 * Posture evaluation's entry points: `installPosture` starts the engine (event listeners, expiry timers, the
 * start-up sweep) once per controller; the route functions add its endpoints. The routes find the engine
 * through the context, since the server's signatures carry only the context.
 */
interface Installed {
  engine: PostureEngine;
  /** the start-up sweep and first evaluation pass, done */
  started: Promise<void>;
  close(): void;
}

const engines = new WeakMap<ControllerContext, Installed>();

export function installPosture(ctx: ControllerContext): Installed {
  return install(ctx);
}

function install(ctx: ControllerContext): Installed {
  const existing = engines.get(ctx);
  if (existing) return existing;
  const engine = new PostureEngine(ctx);
  const wiring = wirePostureEvents(ctx, engine);
  const installed = {
    engine,
    started: wiring.started,
    close() {
      wiring.close();
      engine.close();
      engines.delete(ctx);
    },
  };
  engines.set(ctx, installed);
  return installed;
}

/** The context's engine; a server built without `installPosture` (a test) gets one on first use. */
function engineOf(ctx: ControllerContext): PostureEngine {
  return install(ctx).engine;
}

/** Client API: services with posture queries, sessions, posture responses, service updates. */
export function registerPostureClientRoutes(app: Api, ctx: ControllerContext): void {
  const engine = engineOf(ctx);
  registerPostureResponseRoutes(app, ctx, engine);
  registerServiceRoutes(app, ctx, engine);
  registerSessionRoutes(app, ctx, engine);
}

/** Management API: posture data and failed service requests of an identity; access explained and summarised. */
export function registerPostureManagementRoutes(app: Api, ctx: ControllerContext): void {
  registerPostureManagement(app, ctx);
  registerAccessRoutes(app, ctx);
  registerOverviewRoutes(app, ctx);
}
