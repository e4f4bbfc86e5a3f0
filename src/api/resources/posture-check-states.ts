/**
 * Posture rollout overview (Postern): each identity's latest state per posture check that applies to it
 * (`/posture-checks/{id}/devices`) and, per check, how many devices are in each state (`/posture-check-status`).
 * `would-fail`: the check is report-only and the device fails it; `warned`: it fails a warn check whose
 * deadline is ahead; `excepted`: it fails, but an exception lets it through.
 */
import { Type } from '@sinclair/typebox';
import { DateTime } from './fields.js';
import { Enforcement } from './posture-checks.js';

export const CHECK_STATE_VALUES = ['passing', 'would-fail', 'warned', 'excepted', 'failing'] as const;

export const PostureCheckDevice = Type.Object(
  {
    identityId: Type.String(),
    identityName: Type.Union([Type.String(), Type.Null()]),
    state: Type.Union(CHECK_STATE_VALUES.map((s) => Type.Literal(s))),
    actualValue: Type.Unknown(),
    expectedValue: Type.Unknown(),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'why the check fails, in a sentence' }),
    since: DateTime,
  },
  { title: 'postureCheckDevice' },
);

export const PostureCheckStatus = Type.Object(
  {
    postureCheckId: Type.String(),
    name: Type.String(),
    typeId: Type.String(),
    enforcement: Enforcement,
    counts: Type.Object({
      passing: Type.Integer(),
      wouldFail: Type.Integer(),
      warned: Type.Integer(),
      excepted: Type.Integer(),
      failing: Type.Integer(),
    }),
  },
  { title: 'postureCheckStatus' },
);
