/**
 * 9: identity enrollments (one-time tokens for `ott` and `updb`) and certificate authenticators.
 *
 * - An enrollment keeps the SHA-256 of its token, never the token: the token is derived again from the
 *   controller CA's key and the row's `nonce` when an administrator asks to see it (enrollment-tokens.ts),
 *   so a copy of the database alone holds no usable token. A used enrollment keeps its row, marked
 *   `used_at`, so presenting its token again is answered "already used".
 * - A pending `updb` enrollment holds its username: no two pending enrollments may promise the same one.
 * - Enrollments go with their identity (the foreign key cascades in the deleting transaction).
 * - A `cert` authenticator is a row of `authenticators` with the certificate and its SHA-256 fingerprint,
 *   unique, and no username or password.
 */
export const enrollments = `
CREATE TABLE enrollments (id TEXT PRIMARY KEY,
  identity_id TEXT NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
  method TEXT NOT NULL, username TEXT, token_hash TEXT NOT NULL UNIQUE, nonce TEXT NOT NULL,
  issued_at TEXT NOT NULL, expires_at TEXT NOT NULL, used_at TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX enrollments_by_identity ON enrollments (identity_id);
CREATE UNIQUE INDEX enrollments_pending_username ON enrollments (username)
  WHERE username IS NOT NULL AND used_at IS NULL;

ALTER TABLE authenticators ADD COLUMN cert_fingerprint TEXT;
ALTER TABLE authenticators ADD COLUMN cert_pem TEXT;
CREATE UNIQUE INDEX authenticators_by_fingerprint ON authenticators (cert_fingerprint);
`;
