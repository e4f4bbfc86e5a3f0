import { X509Certificate } from 'node:crypto';
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { Authenticator } from '../model.js';
import { authOf } from '../auth/guard.js';
import { notFound } from '../api-error.js';
import { created, detail, empty, iso, list, selfLinks } from '../http/envelope.js';
import { parseListQuery } from '../http/list-query.js';
import {
  CreateEnvelope,
  EmptyEnvelope,
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../src/api/resources/envelopes.js';
import { ref } from '../http/refs.js';
import {
  AuthenticatorCreate,
  AuthenticatorDetail,
  AuthenticatorPatch,
  AuthenticatorUpdate,
} from '../../src/api/resources/identities.js';
import type { AuthenticatorService } from './authenticator-service.js';
import { recordAdminChange } from '../audit/admin-changes.js';

/**
 * Authenticators: `updb` (username + password; passwords go in, never come out) made here, and `cert` (a
 * client certificate) made by enrollment. Deleting a `cert` one revokes its certificate. The rules live in
 * the service; the routes read requests and shape answers.
 */
export function registerAuthenticators(
  app: Api,
  ctx: ControllerContext,
  service: AuthenticatorService,
): void {
  const tags = ['Authenticator'];
  const { authenticators, identities } = ctx.store;
  /** A page of authenticators as shown, their identities' names read at once. */
  const toWire = async (page: readonly Authenticator[]) => {
    const owners = await identities.getMany([...new Set(page.map((a) => a.identityId))]);
    const names = new Map(owners.map((i) => [i.id, i.name]));
    return page.map((a) => authenticatorToWire(a, names.get(a.identityId) ?? a.identityId));
  };
  const authenticatorToWire = (a: Authenticator, identityName: string) => ({
    id: a.id,
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
    _links: selfLinks('authenticators', a.id),
    tags: {},
    method: a.method,
    identityId: a.identityId,
    identity: ref('identities', a.identityId, identityName),
    ...(a.method === 'updb'
      ? { username: a.username }
      : {
          fingerprint: a.fingerprint,
          certPem: a.certPem,
          isIssuedByNetwork: true,
          expiresAt: certificateExpiry(a.certPem),
        }),
  });

  app.get(
    '/authenticators',
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(AuthenticatorDetail), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = parseListQuery(request.query);
      const page = await authenticators.list(q);
      return list(await toWire(page.items), {
        limit: q.limit,
        offset: q.offset,
        totalCount: page.totalCount,
      });
    },
  );

  // OpenZiti's route: the identity's own sign-in methods, which the console's identity page lists.
  app.get(
    '/identities/:id/authenticators',
    {
      schema: {
        tags: ['Identity'],
        description: "The identity's authenticators: its password login and its certificate logins",
        params: IdParams,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(AuthenticatorDetail), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const q = parseListQuery(request.query);
      const identity = await identities.get(request.params.id);
      if (!identity) throw notFound(`identities/${request.params.id}`);
      const all = await authenticators.listByIdentity(identity.id);
      const shown = all.slice(q.offset, q.offset + q.limit).map((a) => authenticatorToWire(a, identity.name));
      return list(shown, { limit: q.limit, offset: q.offset, totalCount: all.length });
    },
  );

  app.get(
    '/authenticators/:id',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(AuthenticatorDetail), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const [shown] = await toWire([await service.load(request.params.id)]);
      return detail(shown!);
    },
  );

  app.post(
    '/authenticators',
    {
      schema: {
        tags,
        body: AuthenticatorCreate,
        response: { 201: CreateEnvelope, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { identityId, username, password } = request.body;
      const authenticator = await service.createPasswordLogin({ identityId, username, password }, (b, a) =>
        recordAdminChange(ctx, request, 'authenticators', 'create', b, a),
      );
      return reply.status(201).send(created('authenticators', authenticator.id));
    },
  );

  for (const [method, schema] of [
    ['put', AuthenticatorUpdate],
    ['patch', AuthenticatorPatch],
  ] as const) {
    app[method](
      '/authenticators/:id',
      {
        schema: {
          tags,
          params: IdParams,
          body: schema,
          response: { 200: EmptyEnvelope, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const { username, password } = request.body;
        await service.changePasswordLogin(
          request.params.id,
          { username, password },
          authOf(request).session.id,
          (b, a) => recordAdminChange(ctx, request, 'authenticators', 'update', b, a),
        );
        return empty();
      },
    );
  }

  app.delete(
    '/authenticators/:id',
    { schema: { tags, params: IdParams, response: { 200: EmptyEnvelope, ...errorResponses(401, 404) } } },
    async (request) => {
      await service.delete(request.params.id, authOf(request).session.id, (b, a) =>
        recordAdminChange(ctx, request, 'authenticators', 'delete', b, a),
      );
      return empty();
    },
  );
}

/** When a certificate login stops working by itself; null for a PEM that cannot be read. */
function certificateExpiry(certPem: string): string | null {
  try {
    return new Date(new X509Certificate(certPem).validTo).toISOString();
  } catch {
    return null;
  }
}
