/**
 * 3: MFA TOTP enrollments, recovery codes and the audit log.
 *
 * `secret` and `code` hold AES-256-GCM ciphertext under a key kept outside the database
 * (controller/mfa/secret-box.ts); a copy of this file alone reveals neither. `last_step` is the replay
 * guard of RFC 6238 §5.2. Audit rows outlive the identity on purpose.
 */
export const mfa = `
  CREATE TABLE mfa_enrollments (identity_id TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    is_verified INTEGER NOT NULL DEFAULT 0, secret BLOB NOT NULL, last_step INTEGER,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL, verified_at TEXT);

  CREATE TABLE mfa_recovery_codes (id TEXT PRIMARY KEY,
    identity_id TEXT NOT NULL REFERENCES mfa_enrollments (identity_id) ON DELETE CASCADE,
    code BLOB NOT NULL);
  CREATE INDEX mfa_recovery_codes_by_identity ON mfa_recovery_codes (identity_id);

  CREATE TABLE mfa_audit_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    event_type TEXT NOT NULL, identity_id TEXT NOT NULL, api_session_id TEXT, actor_identity_id TEXT,
    source_ip TEXT, outcome TEXT NOT NULL, factor TEXT, reason TEXT, created_at TEXT NOT NULL);
  CREATE INDEX mfa_audit_events_by_identity ON mfa_audit_events (identity_id, seq);
  `;
