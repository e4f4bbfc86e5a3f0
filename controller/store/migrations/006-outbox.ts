/**
 * 6: the access outbox. Every edge session created or removed, and every move of an identity's
 * `lastChangeAt`, leaves a row here in the same transaction as the change, written by triggers so that no
 * code path (a revocation by the posture engine, a sign-out, an orphan sweep) can forget it. After the
 * transaction commits, `events/access-outbox.ts` reads the new rows and publishes them to routers and
 * agents; a rolled-back change leaves no row, so nothing that did not happen is ever published.
 *
 * The triggers call `postern_outbox_written()`, a function the store registers on every connection: it only
 * schedules delivery for after the current transaction.
 */
export const outbox = `
  CREATE TABLE access_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,
    entity_id TEXT NOT NULL, identity_id TEXT NOT NULL, api_session_id TEXT, at TEXT NOT NULL);

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

  CREATE TRIGGER service_changes_inserted AFTER INSERT ON service_changes BEGIN
    INSERT INTO access_outbox (kind, entity_id, identity_id, at)
      VALUES ('access.changed', NEW.identity_id, NEW.identity_id, NEW.last_change_at);
    SELECT postern_outbox_written();
  END;

  CREATE TRIGGER service_changes_updated AFTER UPDATE ON service_changes BEGIN
    INSERT INTO access_outbox (kind, entity_id, identity_id, at)
      VALUES ('access.changed', NEW.identity_id, NEW.identity_id, NEW.last_change_at);
    SELECT postern_outbox_written();
  END;
`;
