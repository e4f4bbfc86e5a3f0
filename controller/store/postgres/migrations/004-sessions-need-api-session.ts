/**
 * 3: an edge session, and an API session's posture row, exist only while their API session does (SQLite's
 * migration 11 says why): foreign keys that cascade, so ending an API session removes both in its own
 * transaction (the outbox triggers fire for each edge session) and a row for an ended one cannot be written.
 * Orphans left behind before this migration go first.
 */
export const sessionsNeedApiSession = `
DELETE FROM edge_sessions e WHERE NOT EXISTS (SELECT 1 FROM api_sessions a WHERE a.id = e.api_session_id);
DELETE FROM posture_api_sessions p
  WHERE NOT EXISTS (SELECT 1 FROM api_sessions a WHERE a.id = p.api_session_id);
ALTER TABLE edge_sessions ADD CONSTRAINT edge_sessions_api_session_fk
  FOREIGN KEY (api_session_id) REFERENCES api_sessions (id) ON DELETE CASCADE;
ALTER TABLE posture_api_sessions ADD CONSTRAINT posture_api_sessions_api_session_fk
  FOREIGN KEY (api_session_id) REFERENCES api_sessions (id) ON DELETE CASCADE;
`;
