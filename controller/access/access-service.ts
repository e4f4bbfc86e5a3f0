/**
 * Access's use cases on the client API, made once at composition (start-controller.ts) and handed to the
 * routes, which only translate HTTP: an API session asks for an edge session, lists the services it may use
 * with their posture queries evaluated, lists or ends its own sessions; a stored posture report re-decides
 * what its identity may reach; an administrator ends a session. The decisions themselves are the engine's
 * and decisions/'s; this is where the routes reach them.
 */
import type { ControllerContext } from '../platform/context.js';
import type { ApiSession, Identity, PolicyType } from '../model.js';
import type { Caller } from '../auth/guard.js';
import { notFound } from '../api-error.js';
import type { ListQuery } from '../store/page.js';
import type { EdgeSession } from '../store/posture-repository.js';
import type { PostureSnapshot } from '../posture-model.js';
import { configMapsOf, requestedConfigTypes } from '../catalogue/configs/service-configs.js';
import { AccessResolver, type ServiceGrant } from './decisions/access-resolver.js';
import type { SessionEvaluation } from './decisions/session-evaluation.js';
import type { PostureEngine } from './engine/posture-engine.js';
import {
  decideSession,
  existingGrantedSession,
  settleAgainstCatalogue,
} from './sessions/session-requests.js';
import { permissionsOf } from './http/service-view.js';
import { filterInMemory } from '../store/filter/filter-in-memory.js';
import { ENTITY_KINDS } from '../store/entity-kinds.js';

/** How the stored services list reads a filter: role attributes and its document fields. */
const SERVICE_FILTER_KIND = { hasRoleAttributes: true, extras: ENTITY_KINDS.services.filterExtras };

/** The caller as the guard authenticated it: its API session and identity. */
export interface SessionHolder {
  session: ApiSession;
  identity: Identity;
}

/** A session request's answer: the session, and whether it is one the caller already held. */
export interface SessionGrant {
  session: EdgeSession;
  existing: boolean;
}

/** A service the caller may use, with its configs of the requested types (by type name). */
export interface ServiceEntry {
  grant: ServiceGrant;
  configs: Record<string, unknown>;
}

/** A page of the caller's services, all evaluated for its API session at one moment. */
export interface ServicePage {
  entries: ServiceEntry[];
  evaluation: SessionEvaluation;
  totalCount: number;
  /** the page the filter's own `limit`/`skip` chose, when it had them */
  limit?: number;
  offset?: number;
}

/**
 * The lookups `GET /services` takes: the list query's page, and either OpenZiti's whole filter grammar
 * (`filter`, as the management lists take it) or the id and name lookups.
 */
export type ServiceQuery = Pick<ListQuery, 'limit' | 'offset' | 'name' | 'nameContains' | 'filter'> & {
  id?: string;
};

export class AccessService {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly engine: PostureEngine,
  ) {}

  /**
   * `POST /sessions`: the caller's existing session when posture still grants it (decided outside any
   * transaction: handing it out writes nothing), else a decision in a group commit. A session decided on a
   * catalogue that changed meanwhile and was revoked by the change is decided again on the new one. Throws the
   * refusal (409 INVALID_POSTURE, its failure record kept) or 400 for a service the caller may not use.
   */
  async requestSession(caller: Caller, serviceId: string, type: PolicyType): Promise<SessionGrant> {
    const { ctx, engine } = this;
    const existing = await existingGrantedSession(ctx, caller, serviceId, type);
    if (existing) return { session: existing, existing: true };
    // Group commit: the session (or the failure record of a refusal) shares one fsync with concurrent
    // requests. A refusal is returned, not thrown, so its failure record is kept, not rolled back.
    const decide = () => ctx.store.batch(() => decideSession(ctx, engine, caller, serviceId, type));
    let decidedAt = ctx.store.catalogueVersion();
    let outcome = await decide();
    while (outcome.created && !(await settleAgainstCatalogue(ctx, engine, outcome.created, decidedAt))) {
      decidedAt = ctx.store.catalogueVersion();
      outcome = await decide();
    }
    if (outcome.refused) throw outcome.refused;
    return { session: outcome.created, existing: false };
  }

  /**
   * The services the caller's policies grant, filtered and paged, with the posture queries evaluated for its
   * API session. `configTypes` is the request's own (one value, a list or a CSV), joined with the API
   * session's.
   */
  async services(caller: SessionHolder, query: ServiceQuery, configTypes: unknown): Promise<ServicePage> {
    const { session, identity } = caller;
    const resolver = await AccessResolver.of(this.ctx.store);
    const grants = resolver.grantsOf(identity);
    const evaluation = await this.engine.evaluation(resolver, identity, session.id);
    if (query.filter !== undefined) {
      // The same grammar, fields and order as the management API's services list (filter-in-memory.ts).
      const found = filterInMemory(
        grants.map((g) => g.service),
        query.filter,
        query,
        SERVICE_FILTER_KIND,
      );
      const byId = new Map(grants.map((g) => [g.service.id, g]));
      const entries = await this.withConfigs(
        found.ids.map((id) => byId.get(id)!),
        configTypes,
        session,
      );
      return { entries, evaluation, totalCount: found.totalCount, limit: found.limit, offset: found.offset };
    }
    const needle = query.nameContains?.toLowerCase();
    const matching = grants
      .filter(
        ({ service: s }) =>
          (query.id === undefined || s.id === query.id) &&
          (query.name === undefined || s.name === query.name),
      )
      .filter(({ service: s }) => needle === undefined || s.name.toLowerCase().includes(needle));
    const page = matching.slice(query.offset, query.offset + query.limit);
    const entries = await this.withConfigs(page, configTypes, session);
    return { entries, evaluation, totalCount: matching.length };
  }

  /** One service the caller may use, evaluated for its API session; 404 as well for one it may not use. */
  async service(
    caller: SessionHolder,
    id: string,
    configTypes: unknown,
  ): Promise<{ entry: ServiceEntry; evaluation: SessionEvaluation }> {
    const { session, identity } = caller;
    const resolver = await AccessResolver.of(this.ctx.store);
    const service = resolver.service(id);
    const policies = service ? resolver.policiesFor(identity, service) : [];
    // A service the identity cannot use is as invisible as one that does not exist.
    if (!service || policies.length === 0) throw notFound(`services/${id}`);
    const evaluation = await this.engine.evaluation(resolver, identity, session.id);
    const [entry] = await this.withConfigs([{ service, policies }], configTypes, session);
    return { entry: entry!, evaluation };
  }

  /** When what the caller's identity can reach last changed (its API session's start when never). */
  async lastChangeAt(caller: SessionHolder): Promise<Date> {
    return (
      (await this.ctx.store.posture.changes.lastChangeAt(caller.identity.id)) ?? caller.session.createdAt
    );
  }

  /** The identity's edge sessions. */
  async sessionsOf(identityId: string): Promise<EdgeSession[]> {
    return this.ctx.store.posture.sessions.listByIdentity(identityId);
  }

  /** One of the identity's edge sessions; another identity's answers 404, like one that does not exist. */
  async ownSession(identityId: string, id: string): Promise<EdgeSession> {
    const session = await this.ctx.store.posture.sessions.get(id);
    if (!session || session.identityId !== identityId) throw notFound(`sessions/${id}`);
    return session;
  }

  /** The caller ends one of its own sessions. */
  async endOwnSession(identityId: string, id: string): Promise<void> {
    await this.ctx.store.posture.sessions.delete((await this.ownSession(identityId, id)).id);
  }

  /**
   * An administrator ends a session: removed in a transaction, whose commit publishes the removal (the access
   * outbox), so routers cut its streams and the agent hears it before this resolves.
   */
  async revokeSession(id: string): Promise<void> {
    const { store } = this.ctx;
    await store.transaction(async () => {
      if (!(await store.posture.sessions.delete(id))) throw notFound(`sessions/${id}`);
    });
  }

  /**
   * A posture report was stored (inside its transaction): the identity's access is decided again on what is
   * stored now, read once, under the identity's access lock. Answers that posture data (undefined when the
   * identity is gone), for the report's own answer.
   */
  reportStored(identityId: string, resolver: AccessResolver): Promise<PostureSnapshot | undefined> {
    return this.engine.evaluateWithData(identityId, { resolver });
  }

  private async withConfigs(
    grants: readonly ServiceGrant[],
    configTypes: unknown,
    session: ApiSession,
  ): Promise<ServiceEntry[]> {
    // OpenZiti: the config types named on the request, plus those the API session was created with.
    const types = await requestedConfigTypes(this.ctx.store, configTypes, session.configTypes);
    const configs = await configMapsOf(
      this.ctx.store,
      grants.map((grant) => ({ service: grant.service, permissions: permissionsOf(grant) })),
      types,
    );
    return grants.map((grant) => ({ grant, configs: configs.get(grant.service.id) ?? {} }));
  }
}
