/**
 * 2: posture data per identity and API session, edge sessions, failed service requests, service-change marks.
 *
 * OpenZiti keeps all of this in memory and loses it on restart; Postern persists it, so a controller restart
 * neither revokes every device nor forgets why access failed.
 * Rows are keyed by identity or API session id without foreign keys: the posture engine deletes them on the
 * `identity.deleted` / `apiSession.deleted` events and sweeps orphans at start. Times are ISO-8601 UTC strings
 * with milliseconds, which sort as text.
 */
export const posture = `
  -- one row per identity and kind ('os', 'mac', 'domain'): the latest report wins
  CREATE TABLE posture_facts (identity_id TEXT NOT NULL, kind TEXT NOT NULL, posture_check_id TEXT NOT NULL,
    value TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (identity_id, kind));

  -- the latest report per binary path
  CREATE TABLE posture_processes (identity_id TEXT NOT NULL, path TEXT NOT NULL, posture_check_id TEXT NOT NULL,
    is_running INTEGER NOT NULL, hash TEXT NOT NULL, signer_fingerprints TEXT NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (identity_id, path));

  -- MFA pass, wake and unlock per API session; access_digest is what the session could reach when last evaluated
  CREATE TABLE posture_api_sessions (api_session_id TEXT PRIMARY KEY, identity_id TEXT NOT NULL,
    mfa_passed_at TEXT, woken_at TEXT, unlocked_at TEXT, sdk_info TEXT, access_digest TEXT);
  CREATE INDEX posture_api_sessions_by_identity ON posture_api_sessions (identity_id);

  -- edge sessions (OpenZiti's "sessions"): one API session's permission to Dial or Bind one service
  CREATE TABLE edge_sessions (id TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, identity_id TEXT NOT NULL,
    api_session_id TEXT NOT NULL, service_id TEXT NOT NULL, type TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE INDEX edge_sessions_by_identity ON edge_sessions (identity_id);
  CREATE INDEX edge_sessions_by_api_session ON edge_sessions (api_session_id, service_id, type);

  -- session requests refused for posture, newest last; trimmed to the last 50 per identity on insert
  CREATE TABLE failed_service_requests (seq INTEGER PRIMARY KEY AUTOINCREMENT, identity_id TEXT NOT NULL,
    api_session_id TEXT NOT NULL, service_id TEXT NOT NULL, service_name TEXT NOT NULL,
    session_type TEXT NOT NULL, at TEXT NOT NULL, policy_failures TEXT NOT NULL);
  CREATE INDEX failed_service_requests_by_identity ON failed_service_requests (identity_id, seq);

  -- when an identity's service access last changed (GET /current-api-session/service-updates)
  CREATE TABLE service_changes (identity_id TEXT PRIMARY KEY, last_change_at TEXT NOT NULL);
`;
