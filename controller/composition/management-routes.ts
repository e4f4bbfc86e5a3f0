import type { Api } from '../http/typed-app.js';
import { registerApiSessions } from '../auth/api-session-routes.js';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouterService } from '../edge-routers/edge-router-service.js';
import { registerIdentities } from '../identities/identity-routes.js';
import { registerAuthenticators } from '../identities/authenticator-routes.js';
import { registerServices } from '../catalogue/service-routes.js';
import { registerServicePolicies } from '../catalogue/service-policy-routes.js';
import { registerAuthPolicies } from '../catalogue/auth-policy-routes.js';
import { registerPostureChecks } from '../catalogue/posture-check-routes.js';
import { registerPostureCheckExceptions } from '../catalogue/posture-exception-routes.js';
import { registerPostureCheckTypes } from '../posture/posture-check-type-routes.js';
import { registerConfigRoutes } from '../catalogue/configs/config-routes.js';
import { registerEdgeRouterRoutes } from '../edge-routers/edge-router-routes.js';
import { registerCheckStateRoutes } from '../access/http/check-state-routes.js';
import { registerRelatedLists } from '../access/http/related-list-routes.js';
import { registerRouterAndConfigLists } from '../access/http/router-and-config-lists.js';
import { registerIdentityDisableRoutes } from '../identities/identity-disable-routes.js';
import { registerPolicyAdviceRoute } from '../access/http/policy-advice-route.js';
import { registerEdgeSessions } from '../access/sessions/edge-session-routes.js';
import { registerAuditRoutes } from '../audit/audit-routes.js';
import type { AccessService } from '../access/access-service.js';
import type { EnrollmentAuthority } from '../enrollment/enrollment-authority.js';
import type { IdentityService } from '../identities/identity-service.js';
import type { AuthenticatorService } from '../identities/authenticator-service.js';
import type { CatalogueService } from '../catalogue/catalogue-service.js';
import type { AuthPolicyService } from '../catalogue/auth-policy-service.js';
import type { ConfigService } from '../catalogue/configs/config-service.js';
import type { ExternalJwtSignerService } from '../external-jwt/signer-service.js';
import { registerExternalJwtSigners } from '../external-jwt/signer-routes.js';
import { registerWebhookRoutes, type DeliveryParts } from '../webhooks/webhook-routes.js';

/** The parts the management API's own routes are handed (made once at composition, start-controller.ts). */
export interface ManagementParts {
  /** issues a created identity's enrollment and shows identities' outstanding ones */
  enrollment: EnrollmentAuthority;
  identities: IdentityService;
  authenticators: AuthenticatorService;
  /** services, service policies and posture checks */
  catalogue: CatalogueService;
  authPolicies: AuthPolicyService;
  /** OpenID providers whose tokens sign identities in */
  externalJwtSigners: ExternalJwtSignerService;
  /** config types and configs */
  configs: ConfigService;
  /** which routers identities and services may use, which are linked now, how clients see them */
  edgeRouters: EdgeRouterService;
  /** access's use cases (edge sessions ended by an administrator) */
  access: AccessService;
  /** webhook subscriptions, their deliveries and the syslog export (absent: a server built without them) */
  deliveries?: DeliveryParts;
}

/** The management API's own routes (admin only, by the guard's default). */
export function registerManagementRoutes(app: Api, ctx: ControllerContext, parts: ManagementParts): void {
  registerIdentities(app, ctx, parts.identities, parts.enrollment);
  registerAuthenticators(app, ctx, parts.authenticators);
  registerServices(app, ctx, parts.catalogue);
  registerServicePolicies(app, ctx, parts.catalogue);
  registerAuthPolicies(app, ctx, parts.authPolicies);
  registerExternalJwtSigners(app, ctx, parts.externalJwtSigners);
  registerPostureChecks(app, ctx, parts.catalogue);
  registerPostureCheckTypes(app);
  registerPostureCheckExceptions(app, ctx);
  registerConfigRoutes(app, ctx, parts.configs);
  registerEdgeRouterRoutes(app, ctx, parts.edgeRouters, parts.enrollment);
  registerApiSessions(app, ctx);
  registerEdgeSessions(app, ctx, parts.access, parts.edgeRouters);
  registerRelatedLists(app, ctx, parts.enrollment);
  registerRouterAndConfigLists(app, ctx, parts.edgeRouters, parts.enrollment);
  registerIdentityDisableRoutes(app, parts.identities);
  registerPolicyAdviceRoute(app, ctx, parts.edgeRouters);
  registerCheckStateRoutes(app, ctx);
  registerAuditRoutes(app, ctx);
  if (parts.deliveries) registerWebhookRoutes(app, ctx, parts.deliveries);
}
