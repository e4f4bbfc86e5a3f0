/**
 * The controller's own router (started beside it by `npm run controller` unless `--no-router`) enrolls
 * like any other: with a one-time token through the client API. This issues that token when the router's
 * folder holds no enrollment the controller still honours, creating the router entity on the first start.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouter } from '../model.js';
import { issueEnrollment } from './router-tokens.js';

export const EMBEDDED_ROUTER_NAME = 'embedded-router';

/**
 * The embedded router's name. On a store of its own (SQLite) there is one: `embedded-router`. On a shared
 * store (PostgreSQL) every instance may embed a router, and each must be its own edge router: under the one
 * name, a second instance would find the first's entity, re-issue its enrollment (the first router's
 * certificate and secret no longer honoured) and link as the same router id. So the name also carries this
 * instance's host and data folder, hashed: the same instance finds its own entity again even if its router
 * folder was lost, and two instances never share one.
 */
export function embeddedRouterName(sharedStore: boolean, dataDir: string): string {
  if (!sharedStore) return EMBEDDED_ROUTER_NAME;
  const instance = createHash('sha256')
    .update(`${hostname()}\0${resolve(dataDir)}`)
    .digest('hex');
  return `${EMBEDDED_ROUTER_NAME}-${instance.slice(0, 12)}`;
}

/** A one-time token for the embedded router, or undefined when `knownRouterId` is enrolled and usable. */
export async function embeddedRouterToken(
  ctx: ControllerContext,
  knownRouterId: string | undefined,
  name: string = EMBEDDED_ROUTER_NAME,
): Promise<string | undefined> {
  const { store } = ctx;
  const known = knownRouterId ? await store.edgeRouters.get(knownRouterId) : undefined;
  if (known && known.isVerified && known.secretHash) return undefined;
  const now = ctx.clock.now();
  const enrollment = issueEnrollment(ctx, now);
  await store.transaction(async () => {
    // Read again inside the transaction: the update keeps any edit made since.
    const existing =
      (known && (await store.edgeRouters.get(known.id))) ?? (await store.edgeRouters.getByName(name));
    if (existing) {
      await store.edgeRouters.update({ ...existing, ...enrollment.fields, updatedAt: now });
      return;
    }
    const router: EdgeRouter = {
      id: randomUUID(),
      name,
      roleAttributes: ['embedded'],
      disabled: false,
      cost: 0,
      noTraversal: false,
      isTunnelerEnabled: false,
      appData: {},
      tags: {},
      hostname: '',
      supportedProtocols: {},
      createdAt: now,
      updatedAt: now,
      ...enrollment.fields,
    };
    await store.edgeRouters.create(router);
  });
  return enrollment.token;
}
