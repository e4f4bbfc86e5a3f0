import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { authOf } from '../auth/guard.js';
import { notFound } from '../api-error.js';
import { empty } from '../http/envelope.js';
import { pageLimit } from '../http/list-query.js';
import {
  EmptyEnvelope,
  IdParams,
  ListQuerystring,
  errorResponses,
} from '../../src/api/resources/envelopes.js';
import type { MfaService } from './mfa-service.js';
import { AUDIT_FILTER_FIELDS, parseAuditFilter } from './audit-filter.js';
import { MfaAuditList } from '../../src/api/resources/mfa.js';
import { auditEventToWire } from './mfa-views.js';
import type { MfaAuditFilter } from '../store/mfa-repository.js';

/**
 * Management API: an administrator's MFA reset and the MFA audit log. Admin only (stated here rather
 * than left to the management API's default, so moving a route cannot open it up).
 */
type ListParams = { limit?: number; offset?: number; filter?: string };

export function registerManagementRoutes(app: Api, ctx: ControllerContext, mfa: MfaService): void {
  app.delete(
    '/identities/:id/mfa',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Identity'],
        description: "Removes the identity's MFA enrollment, verified or not, without a code.",
        params: IdParams,
        response: { 200: EmptyEnvelope, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await mfa.adminRemove({ ...authOf(request), sourceIp: request.ip }, request.params.id);
      return empty();
    },
  );

  const listAudit = async (q: ListParams, scope: MfaAuditFilter = {}) => {
    // `limit=-1` is OpenZiti's "every row", as on every list (a negative LIMIT is an error on PostgreSQL).
    const limit = pageLimit(q.limit);
    const offset = q.offset ?? 0;
    const page = await ctx.store.mfa.listAudit({ ...parseAuditFilter(q.filter), ...scope, limit, offset });
    return {
      data: page.items.map(auditEventToWire),
      meta: {
        pagination: { limit, offset, totalCount: page.totalCount },
        filterableFields: [...AUDIT_FILTER_FIELDS],
      },
    };
  };
  const auditSchema = (...errors: number[]) => ({
    tags: ['MFA Audit'],
    querystring: ListQuerystring,
    response: { 200: MfaAuditList, ...errorResponses(400, 401, ...errors) },
  });

  app.get(
    '/mfa-audit-events',
    {
      config: { access: 'admin' },
      schema: {
        ...auditSchema(),
        description:
          'Every MFA enrollment, verification, failure, removal and recovery-code use, newest first. Never holds a code.',
      },
    },
    async (request) => listAudit(request.query),
  );

  app.get(
    '/identities/:id/mfa-audit-events',
    { config: { access: 'admin' }, schema: { ...auditSchema(404), params: IdParams } },
    async (request) => {
      const { id } = request.params;
      // Deleted identities keep their trail; it stays readable through /mfa-audit-events?filter=identityId="...".
      if (!(await ctx.store.identities.get(id))) throw notFound(`identities/${id}`);
      return listAudit(request.query, { identityId: id });
    },
  );
}
