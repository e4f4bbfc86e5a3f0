/**
 * 14: staged posture enforcement. Posture check exceptions and their history, and each identity's latest
 * state per posture check (passing, would fail under report-only, warned, excepted, failing), as documents
 * like the catalogue's (store/entity-kinds.ts); `name` is the id, these have no name of their own. The
 * indexes serve the lists filtered the way the routes filter them: an exception's history, a check's devices.
 */
export const postureRollout = `
CREATE TABLE posture_check_exceptions (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE posture_check_exception_history (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX posture_check_exception_history_by_exception
  ON posture_check_exception_history (json_extract(doc, '$.exceptionId'), created_at);
CREATE TABLE posture_check_states (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX posture_check_states_by_check ON posture_check_states (json_extract(doc, '$.postureCheckId'));
CREATE INDEX posture_check_states_by_identity ON posture_check_states (json_extract(doc, '$.identityId'));
`;
