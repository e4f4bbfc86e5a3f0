/**
 * 17: event delivery (events/delivery/): webhook subscriptions as documents like the catalogue's, and the
 * durable delivery queue, one row per event and target, written in the event's transaction. `seq` orders a
 * target's deliveries; times are milliseconds since the epoch. The partial index finds each target's oldest
 * pending row (the only one claimable) without reading delivered history.
 */
export const eventDeliveries = `
CREATE TABLE IF NOT EXISTS webhooks (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS event_deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  target TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  lease_owner TEXT,
  lease_until INTEGER,
  created_at TEXT NOT NULL,
  delivered_at INTEGER);
CREATE INDEX IF NOT EXISTS event_deliveries_pending ON event_deliveries (target, seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS event_deliveries_by_target ON event_deliveries (target, state, seq);
`;
