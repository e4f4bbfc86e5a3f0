import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouterService } from '../edge-routers/edge-router-service.js';
import { PostureEngine } from './engine/posture-engine.js';
import { wirePostureEvents } from './engine/posture-events.js';
import { registerPostureManagement } from './reports/posture-data-routes.js';
import { registerAccessRoutes } from './http/access-routes.js';
import { registerOverviewRoutes } from './http/overview-routes.js';
import { registerPostureResponseRoutes } from './reports/posture-response-routes.js';
import { registerServiceRoutes } from './http/service-routes.js';
import { registerSessionRoutes } from './sessions/session-routes.js';

/**
 * Access's entry points: `installPosture` starts the engine (event listeners, expiry timers, the start-up
 * sweep) once per controller, at composition, which hands it to the routes; the route functions add its
 * endpoints.
 */
export interface InstalledAccess {
  engine: PostureEngine;
  /** the start-up sweep and first evaluation pass, done */
  started: Promise<void>;
  close(): void;
}

export function installPosture(ctx: ControllerContext): InstalledAccess {
  const engine = new PostureEngine(ctx);
  const wiring = wirePostureEvents(ctx, engine);
  return {
    engine,
    started: wiring.started,
    close() {
      wiring.close();
      engine.close();
    },
  };
}

/** Client API: services with posture queries, sessions, posture responses, service updates. */
export function registerPostureClientRoutes(
  app: Api,
  ctx: ControllerContext,
  engine: PostureEngine,
  edgeRouters: EdgeRouterService,
): void {
  registerPostureResponseRoutes(app, ctx, engine);
  registerServiceRoutes(app, ctx, engine);
  registerSessionRoutes(app, ctx, engine, edgeRouters);
}

/** Management API: posture data and failed service requests of an identity; access explained and summarised. */
export function registerPostureManagementRoutes(app: Api, ctx: ControllerContext): void {
  registerPostureManagement(app, ctx);
  registerAccessRoutes(app, ctx);
  registerOverviewRoutes(app, ctx);
}
