/** 1: entities, role indexes, authenticators, API sessions, the default auth policy. */
export const initial = `
  CREATE TABLE identities (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE services (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE service_policies (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE auth_policies (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE TABLE posture_checks (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);

  -- role attributes of identities, services and posture checks: "who carries #attr" without a scan
  CREATE TABLE role_attributes (kind TEXT NOT NULL, entity_id TEXT NOT NULL, attribute TEXT NOT NULL,
    PRIMARY KEY (kind, entity_id, attribute));
  CREATE INDEX role_attributes_by_attribute ON role_attributes (kind, attribute);

  -- roles a service policy selects, per side: "which policies select #attr / @id / #all" without a scan
  CREATE TABLE policy_roles (policy_id TEXT NOT NULL, side TEXT NOT NULL, role TEXT NOT NULL,
    PRIMARY KEY (policy_id, side, role));
  CREATE INDEX policy_roles_by_role ON policy_roles (side, role);

  CREATE TABLE authenticators (id TEXT PRIMARY KEY, identity_id TEXT NOT NULL, method TEXT NOT NULL,
    username TEXT UNIQUE, password_hash TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE INDEX authenticators_by_identity ON authenticators (identity_id);

  CREATE TABLE api_sessions (id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, identity_id TEXT NOT NULL,
    authenticator_id TEXT NOT NULL, doc TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    last_activity_at TEXT NOT NULL);
  CREATE INDEX api_sessions_by_identity ON api_sessions (identity_id);

  INSERT INTO auth_policies (id, name, doc, created_at, updated_at) VALUES ('default', 'Default',
    '{"primary":{"updb":{"allowed":true,"minPasswordLength":5,"requireSpecialChar":false,"requireNumberChar":false,"requireMixedCase":false,"maxAttempts":0,"lockoutDurationMinutes":0},"cert":{"allowed":true,"allowExpiredCerts":true},"extJwt":{"allowed":true,"allowedSigners":[]}},"secondary":{"requireTotp":false,"requireExtJwtSigner":null},"tags":{}}',
    strftime('%Y-%m-%dT%H:%M:%fZ','now'), strftime('%Y-%m-%dT%H:%M:%fZ','now'));
  `;
