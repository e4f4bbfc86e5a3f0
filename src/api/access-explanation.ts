/**
 * Why an identity may or may not reach a service, as the management API's `…/services/{id}/access` answers it:
 * each service policy selecting both, with each posture check's result. The controller builds these
 * (controller/access/decisions/access-explanation.ts) and the administrators' console reads them; their
 * schemas are in resources/access.ts.
 */
import type { Static } from '@sinclair/typebox';
import type { PostureFailureReason } from './posture-reasons.js';
// Types only: the schemas are the controller's to run (see schemas.ts).
import type {
  CheckExplanation as CheckExplanationSchema,
  PolicyExplanation as PolicyExplanationSchema,
} from './resources/access.js';

/**
 * One posture check's result: `reason` is a sentence saying why it fails (as in the failure record), `failure`
 * the code and facts the device's user is told (posture-reasons.ts; the schema leaves its facts open).
 */
export type CheckExplanation = Omit<Static<typeof CheckExplanationSchema>, 'failure'> & {
  failure?: PostureFailureReason;
};

export type PolicyExplanation = Omit<Static<typeof PolicyExplanationSchema>, 'postureChecks'> & {
  postureChecks: CheckExplanation[];
};
