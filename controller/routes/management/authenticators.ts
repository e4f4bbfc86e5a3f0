import type { Api } from '../../http/typed-app.js';
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { ControllerContext } from '../../context.js';
import type { Authenticator } from '../../model.js';
import { hashPassword } from '../../auth/passwords.js';
import { endApiSessionsOf } from '../../auth/api-sessions.js';
import { authOf } from '../../auth/guard.js';
import { notFound, validationError } from '../../http/api-error.js';
import { created, detail, empty, iso, list, selfLinks } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import {
  BaseEntity,
  CreateEnvelope,
  EmptyEnvelope,
  EntityRef,
  IdParams,
  ListQuerystring,
  Tags,
  detailEnvelope,
  errorResponses,
  listEnvelope,
  writeBodies,
} from '../../http/schemas.js';
import { ref } from './refs.js';

// The same bounds OpenZiti's /authenticate accepts, so every authenticator made here can log in.
const Username = Type.String({ minLength: 4, maxLength: 100 });
const Password = Type.String({ minLength: 5, maxLength: 100 });
const Create = writeBodies(
  {
    method: Type.Literal('updb'),
    identityId: Type.String({ minLength: 1 }),
    username: Username,
    password: Password,
    tags: Type.Optional(Tags),
  },
  ['certPem'],
).create;
const { create: Update, patch: Patch } = writeBodies({
  username: Username,
  password: Password,
  tags: Type.Optional(Tags),
});
const Detail = Type.Object({
  ...BaseEntity,
  method: Type.String(),
  identityId: Type.String(),
  identity: EntityRef,
  username: Type.Optional(Type.String()),
  fingerprint: Type.Optional(Type.String()),
  certPem: Type.Optional(Type.String()),
  isIssuedByNetwork: Type.Optional(Type.Boolean()),
});

/**
 * Authenticators: `updb` (username + password; passwords go in, never come out) made here, and `cert` (a
 * client certificate) made by enrollment. Deleting a `cert` one revokes its certificate.
 */
export function registerAuthenticators(app: Api, ctx: ControllerContext): void {
  const tags = ['Authenticator'];
  const { authenticators, identities } = ctx.store;
  const toWire = (a: Authenticator) => ({
    id: a.id,
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
    _links: selfLinks('authenticators', a.id),
    tags: {},
    method: a.method,
    identityId: a.identityId,
    identity: ref('identities', a.identityId, identities.get(a.identityId)?.name ?? a.identityId),
    ...(a.method === 'updb'
      ? { username: a.username }
      : { fingerprint: a.fingerprint, certPem: a.certPem, isIssuedByNetwork: true }),
  });
  const load = (id: string) =>
    authenticators.get(id) ??
    (() => {
      throw notFound(`authenticators/${id}`);
    })();
  const minLength = (identityId: string) => {
    const policyId = identities.get(identityId)?.authPolicyId ?? 'default';
    return ctx.store.authPolicies.get(policyId)?.primary.updb.minPasswordLength ?? 5;
  };
  const checkPassword = (identityId: string, password: string) => {
    const min = minLength(identityId);
    if (password.length < min)
      throw validationError([{ field: 'password', reason: `must be at least ${min} characters` }]);
  };

  app.get(
    '/authenticators',
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(Detail), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = parseListQuery(request.query);
      const page = authenticators.list(q);
      return list(page.items.map(toWire), { limit: q.limit, offset: q.offset, totalCount: page.totalCount });
    },
  );

  app.get(
    '/authenticators/:id',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(Detail), ...errorResponses(401, 404) },
      },
    },
    async (request) => detail(toWire(load(request.params.id))),
  );

  app.post(
    '/authenticators',
    { schema: { tags, body: Create, response: { 201: CreateEnvelope, ...errorResponses(400, 401) } } },
    async (request, reply) => {
      const { body } = request;
      if (!identities.get(body.identityId)) {
        throw validationError([
          { field: 'identityId', reason: `no identity with id '${body.identityId}'`, value: body.identityId },
        ]);
      }
      const refuseSecond = () => {
        if (authenticators.listByIdentity(body.identityId).some((a) => a.method === 'updb'))
          throw validationError([
            {
              field: 'identityId',
              reason: 'the identity already has a updb authenticator',
              value: body.identityId,
            },
          ]);
      };
      refuseSecond();
      checkPassword(body.identityId, body.password);
      const now = ctx.clock.now();
      const authenticator: Authenticator = {
        id: randomUUID(),
        identityId: body.identityId,
        method: 'updb',
        username: body.username,
        passwordHash: await hashPassword(body.password),
        createdAt: now,
        updatedAt: now,
      };
      // Checked again with the write: a parallel request may have created one while this one hashed.
      ctx.store.transaction(() => {
        refuseSecond();
        authenticators.create(authenticator);
      });
      return reply.status(201).send(created('authenticators', authenticator.id));
    },
  );

  for (const [method, schema] of [
    ['put', Update],
    ['patch', Patch],
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
        const existing = load(request.params.id);
        if (existing.method !== 'updb')
          throw validationError([
            {
              field: 'method',
              reason: 'a cert authenticator has no username or password; delete it to revoke the certificate',
              value: existing.method,
            },
          ]);
        const { body } = request;
        if (body.password !== undefined) checkPassword(existing.identityId, body.password);
        authenticators.update({
          ...existing,
          username: body.username ?? existing.username,
          passwordHash:
            body.password !== undefined ? await hashPassword(body.password) : existing.passwordHash,
          updatedAt: ctx.clock.now(),
        });
        // A new password ends what the old one opened (the caller's own session excepted).
        if (body.password !== undefined)
          endApiSessionsOf(ctx, existing.identityId, authOf(request).session.id);
        return empty();
      },
    );
  }

  app.delete(
    '/authenticators/:id',
    { schema: { tags, params: IdParams, response: { 200: EmptyEnvelope, ...errorResponses(401, 404) } } },
    async (request) => {
      const existing = load(request.params.id);
      authenticators.delete(existing.id);
      endApiSessionsOf(ctx, existing.identityId, authOf(request).session.id);
      return empty();
    },
  );
}
