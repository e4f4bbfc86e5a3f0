import type { Api } from '../http/typed-app.js';
import { randomUUID } from 'node:crypto';
import type { ControllerContext } from '../platform/context.js';
import type { Authenticator } from '../model.js';
import { hashPassword } from '../auth/passwords.js';
import { endApiSessionsOf } from '../auth/api-sessions.js';
import { serializeSignInChanges } from '../auth/sign-in-changes.js';
import { authOf } from '../auth/guard.js';
import { notFound, validationError } from '../api-error.js';
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

/**
 * Authenticators: `updb` (username + password; passwords go in, never come out) made here, and `cert` (a
 * client certificate) made by enrollment. Deleting a `cert` one revokes its certificate.
 */
export function registerAuthenticators(app: Api, ctx: ControllerContext): void {
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
      : { fingerprint: a.fingerprint, certPem: a.certPem, isIssuedByNetwork: true }),
  });
  const load = async (id: string) => {
    const authenticator = await authenticators.get(id);
    if (!authenticator) throw notFound(`authenticators/${id}`);
    return authenticator;
  };
  const minLength = async (identityId: string) => {
    const policyId = (await identities.get(identityId))?.authPolicyId ?? 'default';
    return (await ctx.store.authPolicies.get(policyId))?.primary.updb.minPasswordLength ?? 5;
  };
  const checkPassword = async (identityId: string, password: string) => {
    const min = await minLength(identityId);
    if (password.length < min)
      throw validationError([{ field: 'password', reason: `must be at least ${min} characters` }]);
  };

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
      const [shown] = await toWire([await load(request.params.id)]);
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
      const { body } = request;
      if (!(await identities.get(body.identityId))) {
        throw validationError([
          { field: 'identityId', reason: `no identity with id '${body.identityId}'`, value: body.identityId },
        ]);
      }
      const second = () =>
        validationError([
          {
            field: 'identityId',
            reason: 'the identity already has a updb authenticator',
            value: body.identityId,
          },
        ]);
      const refuseSecond = async () => {
        if ((await authenticators.listByIdentity(body.identityId)).some((a) => a.method === 'updb'))
          throw second();
      };
      await refuseSecond();
      await checkPassword(body.identityId, body.password);
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
      // One at a time per identity (sign-in-changes.ts).
      await ctx.store.transaction(async () => {
        await serializeSignInChanges(ctx.store, body.identityId);
        await refuseSecond();
        await authenticators.create(authenticator);
      });
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
        const existing = await load(request.params.id);
        if (existing.method !== 'updb')
          throw validationError([
            {
              field: 'method',
              reason: 'a cert authenticator has no username or password; delete it to revoke the certificate',
              value: existing.method,
            },
          ]);
        const { body } = request;
        if (body.password !== undefined) await checkPassword(existing.identityId, body.password);
        // Hashed before the transaction: it is slow, and needs nothing from the store.
        const passwordHash =
          body.password !== undefined ? await hashPassword(body.password) : existing.passwordHash;
        // One transaction: the new password and the end of what the old one opened (the caller's own session
        // excepted) land together, and their revocations are done before the answer.
        await ctx.store.transaction(async () => {
          await authenticators.update({
            ...existing,
            username: body.username ?? existing.username,
            passwordHash,
            updatedAt: ctx.clock.now(),
          });
          if (body.password !== undefined)
            await endApiSessionsOf(ctx, existing.identityId, authOf(request).session.id);
        });
        return empty();
      },
    );
  }

  app.delete(
    '/authenticators/:id',
    { schema: { tags, params: IdParams, response: { 200: EmptyEnvelope, ...errorResponses(401, 404) } } },
    async (request) => {
      const existing = await load(request.params.id);
      await ctx.store.transaction(async () => {
        await authenticators.delete(existing.id);
        await endApiSessionsOf(ctx, existing.identityId, authOf(request).session.id);
      });
      return empty();
    },
  );
}
