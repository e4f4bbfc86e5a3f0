/**
 * 10: event delivery: webhook subscriptions and the durable delivery queue (SQLite's migration 17 says why).
 * Times are on the database's clock, which every instance sharing it reads alike (leases, backoff).
 */
export const eventDeliveries = `
CREATE TABLE webhooks (id text COLLATE "C" PRIMARY KEY, name text COLLATE "C" NOT NULL UNIQUE,
  doc jsonb NOT NULL, created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL);
CREATE TABLE event_deliveries (
  seq bigserial PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  target text COLLATE "C" NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  body text NOT NULL,
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  lease_owner text,
  lease_until timestamptz,
  created_at iso_timestamp NOT NULL,
  delivered_at timestamptz);
CREATE INDEX event_deliveries_pending ON event_deliveries (target, seq) WHERE state = 'pending';
CREATE INDEX event_deliveries_by_target ON event_deliveries (target, state, seq);
`;
