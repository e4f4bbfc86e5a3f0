/**
 * Each identity's latest state per posture check that applies to it through its policies, recorded for the
 * administrator (who would a report-only check refuse, who is warned, who passes only by an exception): stored
 * as a document whose id (and `name`) is `<identityId>:<postureCheckId>`, written only when the state or its
 * values change.
 */
import type { Entity } from './model.js';

export const CHECK_STATES = ['passing', 'would-fail', 'warned', 'excepted', 'failing'] as const;
export type CheckState = (typeof CHECK_STATES)[number];

export interface RecordedCheckState extends Entity {
  identityId: string;
  postureCheckId: string;
  state: CheckState;
  actualValue: unknown;
  expectedValue: unknown;
  /** why the check's own result fails, in a sentence; null while it passes */
  reason: string | null;
  /** when the state became what it is */
  since: Date;
}

export const checkStateId = (identityId: string, postureCheckId: string) => `${identityId}:${postureCheckId}`;
