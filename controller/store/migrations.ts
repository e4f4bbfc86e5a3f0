/**
 * Numbered schema migrations. Each runs once, in order, inside a transaction; `PRAGMA user_version`
 * records the last one applied. Never edit a migration that has shipped: add a new one.
 *
 * Entities are stored as JSON documents in one table per kind (id, unique name, doc) so the API's rich,
 * evolving shapes need no column churn; everything a query must find fast (role attributes, policy
 * roles, usernames, session token hashes) is pulled out into indexed columns or tables.
 */
import { initial } from './migrations/001-initial.js';
import { posture } from './migrations/002-posture.js';
import { mfa } from './migrations/003-mfa.js';
import { configs } from './migrations/004-configs.js';
import { edgeRouters } from './migrations/005-edge-routers.js';
import { outbox } from './migrations/006-outbox.js';
import { usedRecoveryCodes } from './migrations/007-used-recovery-codes.js';
import { enrollmentSession } from './migrations/008-enrollment-session.js';
import { enrollments } from './migrations/009-enrollments.js';
import { identitySortIndexes } from './migrations/010-identity-sort-indexes.js';
import { edgeSessionTokenHashes } from './migrations/011-edge-session-token-hashes.js';
import { sessionsNeedApiSession } from './migrations/012-sessions-need-api-session.js';
import { hostV1Forwarding } from './migrations/013-host-v1-forwarding.js';
import { postureRollout } from './migrations/014-posture-rollout.js';
import { externalJwtSigners } from './migrations/015-external-jwt-signers.js';
import { auditEvents } from './migrations/016-audit-events.js';
import { eventDeliveries } from './migrations/017-event-deliveries.js';

export const MIGRATIONS: readonly string[] = [
  initial,
  posture,
  mfa,
  configs,
  edgeRouters,
  outbox,
  usedRecoveryCodes,
  enrollmentSession,
  enrollments,
  identitySortIndexes,
  edgeSessionTokenHashes,
  sessionsNeedApiSession,
  hostV1Forwarding,
  postureRollout,
  externalJwtSigners,
  auditEvents,
  eventDeliveries,
];
