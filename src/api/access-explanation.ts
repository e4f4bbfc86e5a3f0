/**
 * Why an identity may or may not reach a service, as the management API's `…/services/{id}/access` answers it:
 * each service policy selecting both, with each posture check's result. The controller builds these
 * (controller/access/decisions/access-explanation.ts) and the administrators' console reads them.
 */
import type { PostureFailureReason } from './posture-reasons.js';

export interface CheckExplanation {
  id: string;
  name: string;
  typeId: string;
  isPassing: boolean;
  actualValue: unknown;
  expectedValue: unknown;
  /** a sentence saying why it fails (as in the failure record) */
  reason?: string;
  /** the code and facts the device's user is told (posture-reasons.ts) */
  failure?: PostureFailureReason;
  remediation?: string;
}

export interface PolicyExplanation {
  id: string;
  name: string;
  type: 'Dial' | 'Bind';
  semantic: string;
  isPassing: boolean;
  postureChecks: CheckExplanation[];
}
