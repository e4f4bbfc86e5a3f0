/**
 * 11: an edge session, and an API session's posture row, exist only while their API session does: a rule of
 * the database, not of the code that happens to clean up after a sign-out. Ending an API session removes both
 * in its own transaction (the outbox triggers of `edge_sessions` fire for each, so routers cut the streams);
 * a row for an API session that is gone is never written: an edge session is refused (the writer sees the
 * error), a posture row is silently not made (a late event for a session that ended in between).
 *
 * Triggers rather than foreign keys: SQLite adds a foreign key only by rebuilding the table, which would
 * drop the outbox triggers hanging on it. PostgreSQL has real foreign keys (postgres/migrations/003).
 * Orphans a controller left behind before this migration go first.
 */
export const sessionsNeedApiSession = `
DELETE FROM edge_sessions WHERE api_session_id NOT IN (SELECT id FROM api_sessions);
DELETE FROM posture_api_sessions WHERE api_session_id NOT IN (SELECT id FROM api_sessions);

CREATE TRIGGER edge_sessions_need_api_session BEFORE INSERT ON edge_sessions
  WHEN NOT EXISTS (SELECT 1 FROM api_sessions WHERE id = NEW.api_session_id)
  BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: edge_sessions.api_session_id'); END;
CREATE TRIGGER edge_sessions_keep_api_session BEFORE UPDATE OF api_session_id ON edge_sessions
  WHEN NOT EXISTS (SELECT 1 FROM api_sessions WHERE id = NEW.api_session_id)
  BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: edge_sessions.api_session_id'); END;
CREATE TRIGGER posture_api_sessions_need_api_session BEFORE INSERT ON posture_api_sessions
  WHEN NOT EXISTS (SELECT 1 FROM api_sessions WHERE id = NEW.api_session_id)
  BEGIN SELECT RAISE(IGNORE); END;

CREATE TRIGGER api_sessions_end_their_sessions AFTER DELETE ON api_sessions BEGIN
  DELETE FROM edge_sessions WHERE api_session_id = OLD.id;
  DELETE FROM posture_api_sessions WHERE api_session_id = OLD.id;
END;
`;
