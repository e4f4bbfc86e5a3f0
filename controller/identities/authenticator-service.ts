/**
 * Authenticators' use cases, apart from HTTP: `updb` logins (username + password) are made and changed here,
 * `cert` ones only by enrollment. An identity has at most one `updb` login; a password is as long as its auth
 * policy asks; a new password or a deleted authenticator ends the API sessions the old credential opened
 * (the caller's own excepted).
 */
import { randomUUID } from 'node:crypto';
import type { ControllerContext } from '../platform/context.js';
import type { Authenticator } from '../model.js';
import { notFound, validationError } from '../api-error.js';
import { hashPassword } from '../auth/passwords.js';
import { endApiSessionsOf } from '../auth/api-sessions.js';
import { serializeSignInChanges } from '../auth/sign-in-changes.js';

/** A new password login. */
export interface PasswordLogin {
  identityId: string;
  username: string;
  password: string;
}

/** What an edit of a password login changes (what it leaves undefined stays). */
export interface PasswordLoginChanges {
  username?: string;
  password?: string;
}

/** Records a change on the audit trail inside its transaction (audit/admin-changes.ts); the routes pass it. */
type Audit = (before: Authenticator | undefined, after: Authenticator | undefined) => Promise<void>;
const noAudit: Audit = async () => {};

export class AuthenticatorService {
  constructor(private readonly ctx: ControllerContext) {}

  /** The authenticator, or a 404. */
  async load(id: string): Promise<Authenticator> {
    const authenticator = await this.ctx.store.authenticators.get(id);
    if (!authenticator) throw notFound(`authenticators/${id}`);
    return authenticator;
  }

  /** Adds a `updb` login to an identity that has none; answers it as stored. */
  async createPasswordLogin(login: PasswordLogin, audit: Audit = noAudit): Promise<Authenticator> {
    const { ctx } = this;
    const { authenticators, identities } = ctx.store;
    const { identityId } = login;
    if (!(await identities.get(identityId))) {
      throw validationError([
        { field: 'identityId', reason: `no identity with id '${identityId}'`, value: identityId },
      ]);
    }
    const refuseSecond = async () => {
      if ((await authenticators.listByIdentity(identityId)).some((a) => a.method === 'updb'))
        throw validationError([
          { field: 'identityId', reason: 'the identity already has a updb authenticator', value: identityId },
        ]);
    };
    await refuseSecond();
    await this.checkPassword(identityId, login.password);
    const now = ctx.clock.now();
    const authenticator: Authenticator = {
      id: randomUUID(),
      identityId,
      method: 'updb',
      username: login.username,
      passwordHash: await hashPassword(login.password),
      createdAt: now,
      updatedAt: now,
    };
    // Checked again with the write: a parallel request may have created one while this one hashed.
    // One at a time per identity (sign-in-changes.ts).
    await ctx.store.transaction(async () => {
      await serializeSignInChanges(ctx.store, identityId);
      await refuseSecond();
      await authenticators.create(authenticator);
      await audit(undefined, authenticator);
    });
    return authenticator;
  }

  /**
   * Changes a `updb` login's username or password (a `cert` one has neither: a 400). A new password ends the
   * identity's API sessions but `keepSessionId` (the caller's).
   */
  async changePasswordLogin(
    id: string,
    changes: PasswordLoginChanges,
    keepSessionId: string,
    audit: Audit = noAudit,
  ): Promise<void> {
    const { ctx } = this;
    const existing = await this.load(id);
    if (existing.method !== 'updb')
      throw validationError([
        {
          field: 'method',
          reason: 'a cert authenticator has no username or password; delete it to revoke the certificate',
          value: existing.method,
        },
      ]);
    const { password } = changes;
    if (password !== undefined) await this.checkPassword(existing.identityId, password);
    // Hashed before the transaction: it is slow, and needs nothing from the store.
    const passwordHash = password !== undefined ? await hashPassword(password) : existing.passwordHash;
    // One transaction: the new password and the end of what the old one opened (the caller's own session
    // excepted) land together, and their revocations are done before the answer.
    await ctx.store.transaction(async () => {
      const changed = {
        ...existing,
        username: changes.username ?? existing.username,
        passwordHash,
        updatedAt: ctx.clock.now(),
      };
      await ctx.store.authenticators.update(changed);
      await audit(existing, changed);
      if (password !== undefined) await endApiSessionsOf(ctx, existing.identityId, keepSessionId);
    });
  }

  /**
   * Deletes an authenticator (a `cert` one's certificate no longer signs in) and ends the identity's API
   * sessions but `keepSessionId` (the caller's).
   */
  async delete(id: string, keepSessionId: string, audit: Audit = noAudit): Promise<void> {
    const { ctx } = this;
    const existing = await this.load(id);
    await ctx.store.transaction(async () => {
      await ctx.store.authenticators.delete(existing.id);
      await audit(existing, undefined);
      await endApiSessionsOf(ctx, existing.identityId, keepSessionId);
    });
  }

  /** A 400 naming `password` when it is shorter than the identity's auth policy asks. */
  private async checkPassword(identityId: string, password: string): Promise<void> {
    const { store } = this.ctx;
    const policyId = (await store.identities.get(identityId))?.authPolicyId ?? 'default';
    const min = (await store.authPolicies.get(policyId))?.primary.updb.minPasswordLength ?? 5;
    if (password.length < min)
      throw validationError([{ field: 'password', reason: `must be at least ${min} characters` }]);
  }
}
