/**
 * 16: the audit trail (controller/audit/). One document per event like the catalogue's entities (`name` is the
 * id: events have no name of their own), written in the same transaction as what it records. The indexes
 * serve the management list's usual questions: an identity's or a service's timeline, events of one type, a
 * quoted reference, a time range (created_at is the event's moment).
 */
export const auditEvents = `
CREATE TABLE IF NOT EXISTS audit_events (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS audit_events_by_created ON audit_events (created_at);
CREATE INDEX IF NOT EXISTS audit_events_by_identity ON audit_events (json_extract(doc, '$.identityId'), created_at);
CREATE INDEX IF NOT EXISTS audit_events_by_service ON audit_events (json_extract(doc, '$.serviceId'), created_at);
CREATE INDEX IF NOT EXISTS audit_events_by_type ON audit_events (json_extract(doc, '$.type'), created_at);
CREATE INDEX IF NOT EXISTS audit_events_by_reference ON audit_events (json_extract(doc, '$.reference'));
`;
