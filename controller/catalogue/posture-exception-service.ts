/**
 * Posture check exceptions' use cases, apart from HTTP: what a write must satisfy (exactly one target, the
 * identity and check it names exist, an expiry in the future and within `maxPostureExceptionDays`, a reason),
 * the conflict it must not create (two active exceptions for the same target and check), the history every
 * grant, change, deletion and expiry leaves, and the re-evaluation a change causes (`policy.changed`, as for
 * any catalogue change: exceptions are read with the catalogue, so every decision sees them).
 *
 * Expiry is recorded lazily: when an expired exception is next read (listed, shown, its history asked for,
 * deleted), an `expired` entry dated at its `expiresAt` is added once. Access does not wait for that: from
 * `expiresAt` on the exception no longer applies, and the engine re-decides exactly then (its deadline).
 */
import { randomUUID } from 'node:crypto';
import type { ControllerContext } from '../platform/context.js';
import { ApiError, validationError, type FieldCause } from '../api-error.js';
import {
  isActive,
  type Actor,
  type ExceptionAction,
  type ExceptionHistoryEntry,
  type PostureCheckException,
} from '../posture-exception-model.js';
import { pick, type WriteMode } from '../http/crud.js';
import { normaliseRoles } from './roles.js';

const DAY_MS = 24 * 3600 * 1000;
/** The key writes of exceptions serialize on, so two can never both pass the conflict check. */
const WRITE_KEY = 'posture-check-exceptions';

const sameTarget = (a: PostureCheckException, b: PostureCheckException) =>
  a.identityId !== null
    ? a.identityId === b.identityId
    : b.identityRoles !== null &&
      a.identityRoles!.length === b.identityRoles.length &&
      a.identityRoles!.every((r) => b.identityRoles!.includes(r));

export class PostureExceptionService {
  constructor(private readonly ctx: ControllerContext) {}

  /** Checks a create, PUT or PATCH and answers the exception to store; a 400 naming the field otherwise. */
  async prepare(
    body: Record<string, unknown>,
    mode: WriteMode,
    existing: PostureCheckException | undefined,
    id: string,
    now: Date,
    by: Actor,
  ): Promise<PostureCheckException> {
    const { store, config } = this.ctx;
    const problems: FieldCause[] = [];
    const identityId = pick<string | null>(body, 'identityId', mode, existing?.identityId, null);
    const roles = pick<string[] | null>(body, 'identityRoles', mode, existing?.identityRoles, null);
    const identityRoles = roles && roles.length > 0 ? roles : null;
    if (identityId !== null && identityRoles !== null)
      problems.push({ field: 'identityRoles', reason: 'give identityId or identityRoles, not both' });
    else if (identityId === null && identityRoles === null)
      problems.push({ field: 'identityId', reason: 'one of identityId and identityRoles is required' });
    else if (identityId !== null && !(await store.identities.get(identityId)))
      problems.push({ field: 'identityId', reason: 'no identity with this id', value: identityId });
    const normalisedRoles =
      identityRoles && (await normaliseRoles(identityRoles, 'identityRoles', store.identities, problems));

    const postureCheckId = pick<string | null>(body, 'postureCheckId', mode, existing?.postureCheckId, null);
    if (postureCheckId !== null && !(await store.postureChecks.get(postureCheckId)))
      problems.push({
        field: 'postureCheckId',
        reason: 'no posture check with this id',
        value: postureCheckId,
      });

    const expiresText = pick<string | undefined>(
      body,
      'expiresAt',
      mode,
      existing?.expiresAt.toISOString(),
      undefined,
    );
    const expiresAt = expiresText === undefined ? undefined : new Date(expiresText);
    const latest = now.getTime() + config.maxPostureExceptionDays * DAY_MS;
    if (!expiresAt || Number.isNaN(expiresAt.getTime()))
      problems.push({ field: 'expiresAt', reason: 'is required: an RFC 3339 date-time', value: expiresText });
    else if (expiresAt.getTime() <= now.getTime())
      problems.push({ field: 'expiresAt', reason: 'must be in the future', value: expiresText });
    else if (expiresAt.getTime() > latest)
      problems.push({
        field: 'expiresAt',
        reason: `must be at most ${config.maxPostureExceptionDays} days ahead`,
        value: expiresText,
      });

    const reason = pick<string>(body, 'reason', mode, existing?.reason, '').trim();
    if (!reason) problems.push({ field: 'reason', reason: 'is required: why the device is let through' });
    if (problems.length) throw validationError(problems);
    return {
      id,
      // Exceptions have no name; the document tables want a unique one.
      name: id,
      identityId,
      identityRoles: normalisedRoles ?? null,
      postureCheckId,
      expiresAt: expiresAt!,
      reason,
      grantedBy: existing?.grantedBy ?? by,
      updatedBy: by,
      tags: pick(body, 'tags', mode, existing?.tags, {}),
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
  }

  /**
   * After a write, in its transaction: refuses a second active exception for the same target and check (409),
   * records the write in the history, and has every identity re-evaluated once it commits.
   */
  async written(exception: PostureCheckException, op: WriteMode | 'delete', by: Actor): Promise<void> {
    const { store, clock, events } = this.ctx;
    await store.serializeOn(WRITE_KEY);
    const now = clock.now();
    if (op !== 'delete') {
      const all = await store.postureCheckExceptions.list({
        limit: Math.max(await store.postureCheckExceptions.count(), 1),
        offset: 0,
      });
      const twin = all.items.find(
        (other) =>
          other.id !== exception.id &&
          isActive(other, now) &&
          other.postureCheckId === exception.postureCheckId &&
          sameTarget(exception, other),
      );
      if (twin)
        throw new ApiError(
          409,
          'CONFLICT',
          `An active exception for the same ${exception.identityId ? 'identity' : 'roles'} and check exists (${twin.id})`,
          { field: 'postureCheckId', reason: 'an active exception already covers it', value: twin.id },
        );
    } else {
      await this.recordExpiry(exception, now);
    }
    const action: ExceptionAction = op === 'create' ? 'granted' : op === 'delete' ? 'deleted' : 'changed';
    await this.addHistory(exception, action, by, now);
    events.emit('policy.changed');
  }

  /** Adds each expired exception's `expired` entry, once (see the file's comment). */
  async recordExpiries(exceptions: readonly PostureCheckException[]): Promise<void> {
    const now = this.ctx.clock.now();
    const expired = exceptions.filter((e) => !isActive(e, now));
    if (expired.length === 0) return;
    await this.ctx.store.transaction(async () => {
      await this.ctx.store.serializeOn(WRITE_KEY);
      for (const exception of expired) await this.recordExpiry(exception, now);
    });
  }

  /** The exception's history, oldest first. */
  async history(exceptionId: string): Promise<ExceptionHistoryEntry[]> {
    const repo = this.ctx.store.postureCheckExceptionHistory;
    const page = await repo.list({
      limit: Math.max(await repo.count(), 1),
      offset: 0,
      filter: `exceptionId = "${exceptionId.replace(/["\\]/g, '')}" sort by createdAt asc, id asc`,
    });
    return page.items;
  }

  private async recordExpiry(exception: PostureCheckException, now: Date): Promise<void> {
    if (isActive(exception, now)) return;
    // One per expiry moment: an exception extended after it expired may expire again later.
    const id = `${exception.id}:expired:${exception.expiresAt.getTime()}`;
    if (await this.ctx.store.postureCheckExceptionHistory.get(id)) return;
    await this.addHistory(exception, 'expired', null, exception.expiresAt, id);
  }

  private async addHistory(
    exception: PostureCheckException,
    action: ExceptionAction,
    by: Actor | null,
    at: Date,
    id: string = randomUUID(),
  ): Promise<void> {
    await this.ctx.store.postureCheckExceptionHistory.create({
      id,
      name: id,
      exceptionId: exception.id,
      action,
      by,
      expiresAt: exception.expiresAt,
      reason: exception.reason,
      tags: {},
      createdAt: at,
      updatedAt: at,
    });
  }
}
