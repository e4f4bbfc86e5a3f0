/**
 * The controller's own router (started beside it by `npm run controller` unless `--no-router`) enrolls
 * like any other: with a one-time token through the client API. This issues that token when the router's
 * folder holds no enrollment the controller still honours, creating the router entity on the first start.
 */
import { randomUUID } from 'node:crypto';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouter } from '../model.js';
import { issueEnrollment } from './router-tokens.js';

export const EMBEDDED_ROUTER_NAME = 'embedded-router';

/** A one-time token for the embedded router, or undefined when `knownRouterId` is enrolled and usable. */
export async function embeddedRouterToken(
  ctx: ControllerContext,
  knownRouterId: string | undefined,
): Promise<string | undefined> {
  const { store } = ctx;
  const known = knownRouterId ? await store.edgeRouters.get(knownRouterId) : undefined;
  if (known && known.isVerified && known.secretHash) return undefined;
  const now = ctx.clock.now();
  const enrollment = issueEnrollment(ctx, now);
  await store.transaction(async () => {
    // Read again inside the transaction: the update keeps any edit made since.
    const existing =
      (known && (await store.edgeRouters.get(known.id))) ??
      (await store.edgeRouters.getByName(EMBEDDED_ROUTER_NAME));
    if (existing) {
      await store.edgeRouters.update({ ...existing, ...enrollment.fields, updatedAt: now });
      return;
    }
    const router: EdgeRouter = {
      id: randomUUID(),
      name: EMBEDDED_ROUTER_NAME,
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
