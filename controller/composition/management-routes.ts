import type { Api } from '../http/typed-app.js';
import { registerApiSessions } from '../auth/api-session-routes.js';
import type { ControllerContext } from '../platform/context.js';
import { registerIdentities } from '../identities/identity-routes.js';
import { registerAuthenticators } from '../identities/authenticator-routes.js';
import { registerServices } from '../catalogue/service-routes.js';
import { registerServicePolicies } from '../catalogue/service-policy-routes.js';
import { registerAuthPolicies } from '../catalogue/auth-policy-routes.js';
import { registerPostureChecks } from '../catalogue/posture-check-routes.js';
import { registerPostureCheckTypes } from '../posture/posture-check-type-routes.js';
import { registerConfigRoutes } from '../catalogue/configs/config-routes.js';
import { registerEdgeRouterRoutes } from '../edge-routers/edge-router-routes.js';
import { registerRelatedLists } from '../access/http/related-list-routes.js';
import { registerEdgeSessions } from '../access/sessions/edge-session-routes.js';
import type { AccessService } from '../access/access-service.js';

/** The management API's own routes (admin only, by the guard's default). */
export function registerManagementRoutes(app: Api, ctx: ControllerContext, access: AccessService): void {
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
  registerEdgeSessions(app, ctx, access);
  registerRelatedLists(app, ctx);
}
