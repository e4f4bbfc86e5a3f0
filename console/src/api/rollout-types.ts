/**
 * The management API's staged-enforcement wire as the console reads it: a check's enforcement mode, exceptions
 * from checks, the recorded state of each device per check, and the impact preview of a change. Written here
 * from the API contract (docs/ACCESS.md, docs/OPENZITI-COMPATIBILITY.md); the console sends what the administrator
 * typed and the API validates it, naming any field it refuses.
 */
import type { BaseEntity, EntityRef } from '../../../src/api/envelopes.js';

export const ENFORCEMENT_MODES = ['enforce', 'report-only', 'warn'] as const;
export type EnforcementMode = (typeof ENFORCEMENT_MODES)[number];

/** Absent on a check means `{mode: 'enforce', enforceFrom: null}`. */
export interface Enforcement {
  mode: EnforcementMode;
  /** RFC 3339; only with `warn`: the moment the check starts to refuse */
  enforceFrom: string | null;
}

export type PostureCheckException = BaseEntity & {
  identityId: string | null;
  identityRoles: string[] | null;
  /** null: every check */
  postureCheckId: string | null;
  expiresAt: string;
  reason: string;
  grantedBy: EntityRef | null;
  updatedBy?: EntityRef | null;
  state: 'active' | 'expired';
};

export interface ExceptionHistoryEntry {
  at: string;
  action: 'granted' | 'changed' | 'deleted' | 'expired';
  by: EntityRef | null;
  expiresAt: string;
  reason: string;
}

export const DEVICE_STATES = ['passing', 'would-fail', 'warned', 'excepted', 'failing'] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

/** One identity's latest recorded state for one check (`/posture-checks/{id}/devices`). */
export interface CheckDevice {
  identityId: string;
  identityName: string;
  state: DeviceState;
  actualValue: unknown;
  expectedValue: unknown;
  reason: string | null;
  since: string;
}

/** One check's devices counted by state (`/posture-check-status`). */
export interface CheckStatus {
  postureCheckId: string;
  name: string;
  typeId: string;
  enforcement: Enforcement;
  counts: { passing: number; wouldFail: number; warned: number; excepted: number; failing: number };
}

export interface PreviewReason {
  postureCheckId: string;
  postureCheckName: string;
  typeId: string;
  actualValue: unknown;
  expectedValue: unknown;
  reason: string | null;
}

export interface PreviewItem {
  identityId: string;
  identityName: string;
  serviceId: string;
  serviceName: string;
  reasons: PreviewReason[];
}

/** What saving a change would do to Dial access, per identity and service, over the stored posture data. */
export interface AccessPreview {
  newlyRefused: PreviewItem[];
  newlyGranted: PreviewItem[];
  newlyRefusedCount: number;
  newlyGrantedCount: number;
  identitiesRefused: number;
  servicesRefused: number;
}
