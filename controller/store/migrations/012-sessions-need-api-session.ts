/**
 * 12: an edge session, and an API session's posture row, exist only while their API session does: a rule of
 * the database (foreign keys that cascade), not of the code that happens to clean up after a sign-out. Ending
 * an API session removes both in its own transaction (the outbox trigger fires for each edge session, so
 * routers cut their streams after commit); a row for an API session that is gone cannot be written.
 *
 * SQLite adds a foreign key only by rebuilding the table: each is made anew with the key, given the rows whose
 * API session exists (orphans a controller left behind go), and its indexes and the outbox triggers of
 * migration 6 are made again. PostgreSQL adds the same keys in place (postgres/migrations/004).
 */
export const sessionsNeedApiSession = `
  CREATE TABLE edge_sessions_next (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE,
    identity_id TEXT NOT NULL,
    api_session_id TEXT NOT NULL REFERENCES api_sessions (id) ON DELETE CASCADE,
    service_id TEXT NOT NULL, type TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  INSERT INTO edge_sessions_next SELECT id, token_hash, identity_id, api_session_id, service_id, type,
    created_at, updated_at FROM edge_sessions WHERE api_session_id IN (SELECT id FROM api_sessions);
  DROP TABLE edge_sessions;
  ALTER TABLE edge_sessions_next RENAME TO edge_sessions;
  CREATE INDEX edge_sessions_by_identity ON edge_sessions (identity_id);
  CREATE INDEX edge_sessions_by_api_session ON edge_sessions (api_session_id, service_id, type);

  CREATE TRIGGER edge_sessions_added AFTER INSERT ON edge_sessions BEGIN
    INSERT INTO access_outbox (kind, entity_id, identity_id, api_session_id, at)
      VALUES ('session.added', NEW.id, NEW.identity_id, NEW.api_session_id, NEW.created_at);
    SELECT postern_outbox_written();
  END;
  CREATE TRIGGER edge_sessions_removed AFTER DELETE ON edge_sessions BEGIN
    INSERT INTO access_outbox (kind, entity_id, identity_id, api_session_id, at)
      VALUES ('session.removed', OLD.id, OLD.identity_id, OLD.api_session_id,
        strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
    SELECT postern_outbox_written();
  END;

  CREATE TABLE posture_api_sessions_next (
    api_session_id TEXT PRIMARY KEY REFERENCES api_sessions (id) ON DELETE CASCADE,
    identity_id TEXT NOT NULL, mfa_passed_at TEXT, woken_at TEXT, unlocked_at TEXT, sdk_info TEXT,
    access_digest TEXT);
  INSERT INTO posture_api_sessions_next SELECT api_session_id, identity_id, mfa_passed_at, woken_at,
    unlocked_at, sdk_info, access_digest FROM posture_api_sessions
    WHERE api_session_id IN (SELECT id FROM api_sessions);
  DROP TABLE posture_api_sessions;
  ALTER TABLE posture_api_sessions_next RENAME TO posture_api_sessions;
  CREATE INDEX posture_api_sessions_by_identity ON posture_api_sessions (identity_id);
`;
