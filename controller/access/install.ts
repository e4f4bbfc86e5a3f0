import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouterService } from '../edge-routers/edge-router-service.js';
import { PostureEngine } from './engine/posture-engine.js';
import { wirePostureEvents } from './engine/posture-events.js';
import { AccessService } from './access-service.js';
import { PostureReports } from './reports/report-ingest.js';
import { registerPostureManagement } from './reports/posture-data-routes.js';
import { registerAccessRoutes } from './http/access-routes.js';
import { registerOverviewRoutes } from './http/overview-routes.js';
import { registerPostureResponseRoutes } from './reports/posture-response-routes.js';
import { registerServiceRoutes } from './http/service-routes.js';
import { registerPreviewRoutes } from './preview/preview-routes.js';
import type { CatalogueService } from '../catalogue/catalogue-service.js';
import { registerSessionRoutes } from './sessions/session-routes.js';

/**
 * Access's entry points: `installPosture` starts the engine (event listeners, expiry timers, the start-up
 * sweep) and makes the services the routes call, once per controller, at composition, which hands them to
 * the routes; the route functions add its endpoints.
 */
export interface InstalledAccess {
  engine: PostureEngine;
  /** the client API's access use cases (sessions, services) */
  access: AccessService;
  /** an API session reports its posture */
  reports: PostureReports;
  /** the start-up sweep and first evaluation pass, done */
  started: Promise<void>;
  close(): void;
}

export function installPosture(ctx: ControllerContext): InstalledAccess {
  const engine = new PostureEngine(ctx);
  const wiring = wirePostureEvents(ctx, engine);
  const access = new AccessService(ctx, engine);
  return {
    engine,
    access,
    reports: new PostureReports(ctx, access),
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
  services: { access: AccessService; reports: PostureReports },
  edgeRouters: EdgeRouterService,
): void {
  registerPostureResponseRoutes(app, services.reports);
  registerServiceRoutes(app, services.access);
  registerSessionRoutes(app, ctx, services.access, edgeRouters);
}

/**
 * Management API: posture data and failed service requests of an identity; access explained and summarised;
 * the impact of a catalogue write previewed (checked by the catalogue's own rules).
 */
export function registerPostureManagementRoutes(
  app: Api,
  ctx: ControllerContext,
  catalogue: CatalogueService,
): void {
  registerPostureManagement(app, ctx);
  registerAccessRoutes(app, ctx);
  registerOverviewRoutes(app, ctx);
  registerPreviewRoutes(app, ctx, catalogue);
}
