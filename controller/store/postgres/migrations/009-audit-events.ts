/**
 * 9: the audit trail, as documents like the catalogue's (SQLite's migration 16 says why and what the indexes
 * serve).
 */
export const auditEvents = `
  CREATE TABLE audit_events (id text COLLATE "C" PRIMARY KEY, name text COLLATE "C" NOT NULL UNIQUE,
    doc jsonb NOT NULL, created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL);
  CREATE INDEX audit_events_by_created ON audit_events (created_at);
  CREATE INDEX audit_events_by_identity ON audit_events (((doc->>'identityId') COLLATE "C"), created_at);
  CREATE INDEX audit_events_by_service ON audit_events (((doc->>'serviceId') COLLATE "C"), created_at);
  CREATE INDEX audit_events_by_type ON audit_events (((doc->>'type') COLLATE "C"), created_at);
  CREATE INDEX audit_events_by_reference ON audit_events (((doc->>'reference') COLLATE "C"));
`;
