/**
 * 6: staged posture enforcement: exceptions, their history and each identity's latest state per posture check
 * (SQLite's migration 14 says why), as documents like the catalogue's.
 */
const documentTable = (table: string) => `
  CREATE TABLE ${table} (id text COLLATE "C" PRIMARY KEY, name text COLLATE "C" NOT NULL UNIQUE,
    doc jsonb NOT NULL, created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL);`;

export const postureRollout = `
${documentTable('posture_check_exceptions')}
${documentTable('posture_check_exception_history')}
CREATE INDEX posture_check_exception_history_by_exception
  ON posture_check_exception_history (((doc->>'exceptionId') COLLATE "C"), created_at);
${documentTable('posture_check_states')}
CREATE INDEX posture_check_states_by_check ON posture_check_states (((doc->>'postureCheckId') COLLATE "C"));
CREATE INDEX posture_check_states_by_identity ON posture_check_states (((doc->>'identityId') COLLATE "C"));
`;
