/**
 * Records, at each evaluation of an identity, its state per posture check that applies to it through its
 * policies (check-state-model.ts): what an administrator reads to see who a report-only check would refuse,
 * who is warned, who passes by an exception. Cheap on the hot path: the identity's rows are read once (one
 * indexed query) and a row is written only when its state or its values changed, or deleted when the check no
 * longer applies. Inside the evaluation's transaction, so the record and the decision agree.
 */
import { checkStateId, type CheckState, type RecordedCheckState } from '../../check-state-model.js';
import type { CheckResult, PostureCheck } from '../../posture-model.js';
import type { Store } from '../../store/repository.js';
import type { SessionEvaluation } from '../decisions/session-evaluation.js';

export function stateOf(result: CheckResult): CheckState {
  if (!result.isPassing) return 'failing';
  switch (result.notEnforced?.because) {
    case undefined:
      return 'passing';
    case 'report-only':
      return 'would-fail';
    case 'warn':
      return 'warned';
    case 'exception':
      return 'excepted';
  }
}

/** Far more checks than any identity's policies name: every row of one identity is read at once. */
const MAX_CHECKS = 100_000;

/** Of a device's API sessions (MFA differs per session), the one faring best speaks for the device. */
const RANK: Record<CheckState, number> = { passing: 0, excepted: 1, warned: 2, 'would-fail': 3, failing: 4 };

const signature = (r: Pick<RecordedCheckState, 'state' | 'actualValue' | 'expectedValue' | 'reason'>) =>
  JSON.stringify([r.state, r.actualValue ?? null, r.expectedValue ?? null, r.reason]);

/** Every row of an identity (it was deleted). */
export async function deleteCheckStatesOf(store: Store, identityId: string): Promise<void> {
  await recordCheckStates(store, identityId, [], [], new Date(0));
}

export async function recordCheckStates(
  store: Store,
  identityId: string,
  checks: readonly PostureCheck[],
  evaluations: readonly SessionEvaluation[],
  now: Date,
): Promise<void> {
  const repo = store.postureCheckStates;
  const stored = new Map(
    (
      await repo.list({
        limit: MAX_CHECKS,
        offset: 0,
        filter: `identityId = "${identityId.replace(/["\\]/g, '')}"`,
      })
    ).items.map((r) => [r.postureCheckId, r]),
  );
  for (const check of checks) {
    let best: { state: CheckState; result: CheckResult } | undefined;
    for (const evaluation of evaluations) {
      const result = evaluation.check(check);
      const state = stateOf(result);
      if (!best || RANK[state] < RANK[best.state]) best = { state, result };
    }
    if (!best) continue;
    const previous = stored.get(check.id);
    stored.delete(check.id);
    const next = {
      state: best.state,
      actualValue: best.result.actualValue ?? null,
      expectedValue: best.result.expectedValue ?? null,
      reason: best.state === 'passing' ? null : (best.result.reason ?? null),
    };
    if (previous && signature(previous) === signature(next)) continue;
    const id = checkStateId(identityId, check.id);
    const row: RecordedCheckState = {
      id,
      name: id,
      identityId,
      postureCheckId: check.id,
      ...next,
      since: previous && previous.state === next.state ? previous.since : now,
      tags: {},
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
    if (previous) await repo.update(row);
    else await repo.create(row);
  }
  // What is left no longer applies to the identity (a policy or check changed).
  for (const gone of stored.values()) await repo.delete(gone.id);
}
