import type { Api } from '../../http/typed-app.js';
import { registerApiSessions } from './api-sessions.js';
import type { ControllerContext } from '../../context.js';
import { registerIdentities } from './identities.js';
import { registerAuthenticators } from './authenticators.js';
import { registerServices } from './services.js';
import { registerServicePolicies } from './service-policies.js';
import { registerAuthPolicies } from './auth-policies.js';
import { registerPostureChecks } from './posture-checks.js';
import { registerPostureCheckTypes } from './posture-check-types.js';
import { registerConfigRoutes } from '../../configs/config-routes.js';
import { registerEdgeRouterRoutes } from '../../edge-routers/edge-router-routes.js';
import { registerRelatedLists } from './related-lists.js';
import { registerEdgeSessions } from './edge-sessions.js';

/** The management API's own routes (admin only, by the guard's default). */
export function registerManagementRoutes(app: Api, ctx: ControllerContext): void {
  registerIdentities(app, ctx);
  registerAuthenticators(app, ctx);
  registerServices(app, ctx);
  registerServicePolicies(app, ctx);
  registerAuthPolicies(app, ctx);
  registerPostureChecks(app, ctx);
  registerPostureCheckTypes(app);
  registerConfigRoutes(app, ctx);
  registerEdgeRouterRoutes(app, ctx);
  registerApiSessions(app, ctx);
  registerEdgeSessions(app, ctx);
  registerRelatedLists(app, ctx);
}
