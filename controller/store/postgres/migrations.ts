/**
 * The PostgreSQL schema's numbered migrations, applied in order by migrate.ts, each once, in its own
 * transaction; `schema_migrations` records which have been (version = position in this list + 1). Never edit a
 * migration that has shipped: add a new one. The first is SQLite's migrations 1 to 10 in one step.
 */
import { initial } from './migrations/001-initial.js';
import { attemptCounters } from './migrations/002-attempt-counters.js';
import { edgeSessionTokenHashes } from './migrations/003-edge-session-token-hashes.js';
import { sessionsNeedApiSession } from './migrations/004-sessions-need-api-session.js';
import { hostV1Forwarding } from './migrations/005-host-v1-forwarding.js';
import { routerPresence } from './migrations/006-router-presence.js';
import { postureRollout } from './migrations/007-posture-rollout.js';
import { externalJwtSigners } from './migrations/008-external-jwt-signers.js';
import { auditEvents } from './migrations/009-audit-events.js';
import { eventDeliveries } from './migrations/010-event-deliveries.js';

export const POSTGRES_MIGRATIONS: readonly string[] = [
  initial,
  attemptCounters,
  edgeSessionTokenHashes,
  sessionsNeedApiSession,
  hostV1Forwarding,
  routerPresence,
  postureRollout,
  externalJwtSigners,
  auditEvents,
  eventDeliveries,
];
