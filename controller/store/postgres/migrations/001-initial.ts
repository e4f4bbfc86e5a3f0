/**
 * 1: the whole schema of SQLite's migrations 1 to 10, consolidated (a PostgreSQL database starts here; there
 * is no SQLite history to replay), plus two tables the controllers sharing one database need: `deadlines` and
 * `attempt_counters`.
 *
 * Choices made once for every table:
 * - Text is COLLATE "C": SQLite compares and sorts text bytewise, and lists sort by name, filters compare with
 *   < and > and fold case with lower(). "C" gives the same answers whatever collation the database was created
 *   with, and makes lower() fold ASCII letters only, as SQLite's does.
 * - Times the API reads and writes are ISO-8601 UTC text with milliseconds (`Date#toISOString()`), as in SQLite,
 *   in the domain `iso_timestamp`, which refuses any other shape. Text because the filters compare `createdAt`
 *   and document datetimes (ISO strings inside the JSON) with ISO text (`datetime(…)` values): one kind of
 *   comparison on both sides, in the order the text sorts, which the fixed format makes the order in time. The
 *   repositories keep writing `toISOString()` and reading `new Date(text)`, and a value comes back exactly as
 *   written (timestamptz keeps microseconds, a JavaScript Date milliseconds).
 * - Times only the database compares with its own clock, across controllers whose clocks may differ
 *   (`deadlines`, `attempt_counters`), are timestamptz, for `due_at <= now()`.
 * - Entity documents are jsonb (filters read inside them). JSON that is only ever read whole and comes from
 *   clients (an API session's envInfo/sdkInfo, posture reports) is text: jsonb refuses `\u0000` and unpaired
 *   surrogate escapes, which JSON.stringify writes and SQLite keeps.
 * - Counters that order rows (`seq`) are bigserial; node-postgres returns int8 as a string.
 */
import { BUILTIN_CONFIG_TYPES } from '../../builtin-config-types.js';

/** One entity kind: its OpenZiti id, its unique name, and the rest of the entity as a JSON document. */
const documentTable = (table: string) => `
  CREATE TABLE ${table} (id text COLLATE "C" PRIMARY KEY, name text COLLATE "C" NOT NULL UNIQUE,
    doc jsonb NOT NULL, created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL);`;

/** A SQL string literal: standard_conforming_strings (on since PostgreSQL 9.1) keeps backslashes as written. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

const now = 'to_iso_timestamp(now())';

const DEFAULT_AUTH_POLICY = {
  primary: {
    updb: {
      allowed: true,
      minPasswordLength: 5,
      requireSpecialChar: false,
      requireNumberChar: false,
      requireMixedCase: false,
      maxAttempts: 0,
      lockoutDurationMinutes: 0,
    },
    cert: { allowed: true, allowExpiredCerts: true },
    extJwt: { allowed: true, allowedSigners: [] },
  },
  secondary: { requireTotp: false, requireExtJwtSigner: null },
  tags: {},
};

const builtinConfigType = (t: (typeof BUILTIN_CONFIG_TYPES)[number]) =>
  `(${literal(t.id)}, ${literal(t.name)}, ${literal(JSON.stringify({ schema: t.schema, target: 'service', tags: {} }))}, ${now}, ${now})`;

export const initial = `
  CREATE DOMAIN iso_timestamp AS text COLLATE "C"
    CHECK (VALUE ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$');

  -- a database time as the API writes times (Date#toISOString)
  CREATE FUNCTION to_iso_timestamp(at timestamptz) RETURNS iso_timestamp LANGUAGE sql STABLE
    RETURN to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

  -- entities, one table per kind
  ${documentTable('identities')}
  ${documentTable('services')}
  ${documentTable('service_policies')}
  ${documentTable('auth_policies')}
  ${documentTable('posture_checks')}
  ${documentTable('config_types')}
  ${documentTable('configs')}
  ${documentTable('edge_routers')}
  ${documentTable('edge_router_policies')}
  ${documentTable('service_edge_router_policies')}

  -- the identity list sorted by creation time or type reads its first page from an index; the type expression
  -- and NULLS FIRST are exactly what the filter compiler writes (store/postgres/document-filter.ts), or
  -- PostgreSQL would not use it (read backwards, it serves the descending sort too); id last, the tie-breaker
  CREATE INDEX identities_by_created ON identities (created_at, id);
  CREATE INDEX identities_by_type ON identities (((doc->>'type') COLLATE "C") NULLS FIRST, id);

  -- role attributes of identities, services, posture checks and edge routers: "who carries #attr" without a scan
  CREATE TABLE role_attributes (kind text COLLATE "C" NOT NULL, entity_id text COLLATE "C" NOT NULL,
    attribute text COLLATE "C" NOT NULL, PRIMARY KEY (kind, entity_id, attribute));
  CREATE INDEX role_attributes_by_attribute ON role_attributes (kind, attribute);

  -- roles a service policy selects, per side: "which policies select #attr / @id / #all" without a scan
  CREATE TABLE policy_roles (policy_id text COLLATE "C" NOT NULL, side text COLLATE "C" NOT NULL,
    role text COLLATE "C" NOT NULL, PRIMARY KEY (policy_id, side, role));
  CREATE INDEX policy_roles_by_role ON policy_roles (side, role);

  -- how identities sign in: a username and password hash (updb), or a certificate and its SHA-256 (cert)
  CREATE TABLE authenticators (id text COLLATE "C" PRIMARY KEY, identity_id text COLLATE "C" NOT NULL,
    method text COLLATE "C" NOT NULL, username text COLLATE "C" UNIQUE, password_hash text COLLATE "C",
    cert_fingerprint text COLLATE "C", cert_pem text COLLATE "C",
    created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL);
  CREATE INDEX authenticators_by_identity ON authenticators (identity_id);
  CREATE UNIQUE INDEX authenticators_by_fingerprint ON authenticators (cert_fingerprint);

  -- API sessions, by the SHA-256 of their token (a copy of the database holds no usable token); doc is text,
  -- see the header
  CREATE TABLE api_sessions (id text COLLATE "C" PRIMARY KEY, token_hash text COLLATE "C" NOT NULL UNIQUE,
    identity_id text COLLATE "C" NOT NULL, authenticator_id text COLLATE "C" NOT NULL, doc text COLLATE "C" NOT NULL,
    created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL, last_activity_at iso_timestamp NOT NULL);
  CREATE INDEX api_sessions_by_identity ON api_sessions (identity_id);

  -- identity enrollments (one-time tokens for ott and updb): the token's SHA-256, never the token; a used one
  -- keeps its row, marked used_at; they go with their identity; no two pending ones promise one username
  CREATE TABLE enrollments (id text COLLATE "C" PRIMARY KEY,
    identity_id text COLLATE "C" NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
    method text COLLATE "C" NOT NULL, username text COLLATE "C", token_hash text COLLATE "C" NOT NULL UNIQUE,
    nonce text COLLATE "C" NOT NULL, issued_at iso_timestamp NOT NULL, expires_at iso_timestamp NOT NULL,
    used_at iso_timestamp, created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL);
  CREATE INDEX enrollments_by_identity ON enrollments (identity_id);
  CREATE UNIQUE INDEX enrollments_pending_username ON enrollments (username)
    WHERE username IS NOT NULL AND used_at IS NULL;

  -- posture data, kept across restarts; keyed by identity or API session without foreign keys (the posture
  -- engine deletes it on identity.deleted / apiSession.deleted and sweeps orphans at start)

  -- one row per identity and kind ('os', 'mac', 'domain'): the latest report wins; value is JSON text
  CREATE TABLE posture_facts (identity_id text COLLATE "C" NOT NULL, kind text COLLATE "C" NOT NULL,
    posture_check_id text COLLATE "C" NOT NULL, value text COLLATE "C" NOT NULL, updated_at iso_timestamp NOT NULL,
    PRIMARY KEY (identity_id, kind));

  -- the latest report per binary path; signer_fingerprints is a JSON array as text
  CREATE TABLE posture_processes (identity_id text COLLATE "C" NOT NULL, path text COLLATE "C" NOT NULL,
    posture_check_id text COLLATE "C" NOT NULL, is_running boolean NOT NULL, hash text COLLATE "C" NOT NULL,
    signer_fingerprints text COLLATE "C" NOT NULL, updated_at iso_timestamp NOT NULL,
    PRIMARY KEY (identity_id, path));

  -- MFA pass, wake and unlock per API session; access_digest is what the session could reach when last evaluated
  CREATE TABLE posture_api_sessions (api_session_id text COLLATE "C" PRIMARY KEY,
    identity_id text COLLATE "C" NOT NULL, mfa_passed_at iso_timestamp, woken_at iso_timestamp,
    unlocked_at iso_timestamp, sdk_info text COLLATE "C", access_digest text COLLATE "C");
  CREATE INDEX posture_api_sessions_by_identity ON posture_api_sessions (identity_id);

  -- edge sessions (OpenZiti's "sessions"): one API session's permission to Dial or Bind one service
  CREATE TABLE edge_sessions (id text COLLATE "C" PRIMARY KEY, token text COLLATE "C" NOT NULL UNIQUE,
    identity_id text COLLATE "C" NOT NULL, api_session_id text COLLATE "C" NOT NULL,
    service_id text COLLATE "C" NOT NULL, type text COLLATE "C" NOT NULL,
    created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL);
  CREATE INDEX edge_sessions_by_identity ON edge_sessions (identity_id);
  CREATE INDEX edge_sessions_by_api_session ON edge_sessions (api_session_id, service_id, type);

  -- session requests refused for posture, newest last; the store keeps the last 50 per identity
  CREATE TABLE failed_service_requests (seq bigserial PRIMARY KEY, identity_id text COLLATE "C" NOT NULL,
    api_session_id text COLLATE "C" NOT NULL, service_id text COLLATE "C" NOT NULL,
    service_name text COLLATE "C" NOT NULL, session_type text COLLATE "C" NOT NULL, at iso_timestamp NOT NULL,
    policy_failures text COLLATE "C" NOT NULL);
  CREATE INDEX failed_service_requests_by_identity ON failed_service_requests (identity_id, seq);

  -- when an identity's service access last changed (GET /current-api-session/service-updates)
  CREATE TABLE service_changes (identity_id text COLLATE "C" PRIMARY KEY, last_change_at iso_timestamp NOT NULL);

  -- MFA TOTP enrollments: secret is AES-256-GCM ciphertext under a key kept outside the database; last_step
  -- is the replay guard of RFC 6238 §5.2; started_by is the API session that started an unfinished enrollment
  CREATE TABLE mfa_enrollments (identity_id text COLLATE "C" PRIMARY KEY, id text COLLATE "C" NOT NULL UNIQUE,
    is_verified boolean NOT NULL DEFAULT false, secret bytea NOT NULL, last_step bigint,
    created_at iso_timestamp NOT NULL, updated_at iso_timestamp NOT NULL, verified_at iso_timestamp,
    started_by text COLLATE "C");

  -- recovery codes (ciphertext), kept marked used_at once used; seq is the order they were written, which
  -- SQLite reads from its rowid
  CREATE TABLE mfa_recovery_codes (id text COLLATE "C" PRIMARY KEY, seq bigserial NOT NULL,
    identity_id text COLLATE "C" NOT NULL REFERENCES mfa_enrollments (identity_id) ON DELETE CASCADE,
    code bytea NOT NULL, used_at iso_timestamp);
  CREATE INDEX mfa_recovery_codes_by_identity ON mfa_recovery_codes (identity_id, seq);

  -- the MFA audit log, newest last; it outlives the identity on purpose
  CREATE TABLE mfa_audit_events (seq bigserial PRIMARY KEY, id text COLLATE "C" NOT NULL UNIQUE,
    event_type text COLLATE "C" NOT NULL, identity_id text COLLATE "C" NOT NULL, api_session_id text COLLATE "C",
    actor_identity_id text COLLATE "C", source_ip text COLLATE "C", outcome text COLLATE "C" NOT NULL,
    factor text COLLATE "C", reason text COLLATE "C", created_at iso_timestamp NOT NULL);
  CREATE INDEX mfa_audit_events_by_identity ON mfa_audit_events (identity_id, seq);

  /*
   * The access outbox: every edge session created or removed, and every move of an identity's lastChangeAt,
   * leaves a row here in the same transaction as the change, written by triggers so that no code path can
   * forget it; a rolled-back change leaves no row. Every row written notifies channel postern_outbox with its
   * seq: PostgreSQL delivers a NOTIFY only when its transaction commits, so every controller sharing the
   * database hears of committed rows, and only of those.
   *
   * seq comes from a sequence, taken when the row is written, not when it commits: a reader that remembers
   * only the highest seq it has seen can step past a row whose transaction commits later. xact is the writing
   * transaction: rows with xact < pg_snapshot_xmin(pg_current_snapshot()) are final (every such transaction
   * has ended), so a reader that takes only those, in (xact, seq) order, misses none.
   */
  CREATE TABLE access_outbox (seq bigserial PRIMARY KEY, xact xid8 NOT NULL DEFAULT pg_current_xact_id(),
    kind text COLLATE "C" NOT NULL, entity_id text COLLATE "C" NOT NULL, identity_id text COLLATE "C" NOT NULL,
    api_session_id text COLLATE "C", at iso_timestamp NOT NULL);
  CREATE INDEX access_outbox_by_xact ON access_outbox (xact, seq);

  CREATE FUNCTION access_outbox_session_added() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO access_outbox (kind, entity_id, identity_id, api_session_id, at)
      VALUES ('session.added', NEW.id, NEW.identity_id, NEW.api_session_id, NEW.created_at);
    RETURN NULL;
  END $$;
  CREATE TRIGGER edge_sessions_added AFTER INSERT ON edge_sessions
    FOR EACH ROW EXECUTE FUNCTION access_outbox_session_added();

  CREATE FUNCTION access_outbox_session_removed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO access_outbox (kind, entity_id, identity_id, api_session_id, at)
      VALUES ('session.removed', OLD.id, OLD.identity_id, OLD.api_session_id,
        to_iso_timestamp(statement_timestamp()));
    RETURN NULL;
  END $$;
  CREATE TRIGGER edge_sessions_removed AFTER DELETE ON edge_sessions
    FOR EACH ROW EXECUTE FUNCTION access_outbox_session_removed();

  -- an upsert (INSERT … ON CONFLICT DO UPDATE) fires the update trigger: one row either way
  CREATE FUNCTION access_outbox_access_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO access_outbox (kind, entity_id, identity_id, at)
      VALUES ('access.changed', NEW.identity_id, NEW.identity_id, NEW.last_change_at);
    RETURN NULL;
  END $$;
  CREATE TRIGGER service_changes_written AFTER INSERT OR UPDATE ON service_changes
    FOR EACH ROW EXECUTE FUNCTION access_outbox_access_changed();

  -- on the outbox itself, so whatever writes a row there, the other controllers wake up
  CREATE FUNCTION access_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('postern_outbox', NEW.seq::text);
    RETURN NULL;
  END $$;
  CREATE TRIGGER access_outbox_written AFTER INSERT ON access_outbox
    FOR EACH ROW EXECUTE FUNCTION access_outbox_notify();

  /*
   * Deadlines that must fire even if the controller that set them stops: an MFA timeout, the end of a grace
   * period. kind says what to do, subject to whom (an API session, an identity); a controller claims a due row
   * by setting owner and claimed_at (a claim older than some limit may be taken over), acts, then deletes it.
   */
  CREATE TABLE deadlines (id text COLLATE "C" PRIMARY KEY, kind text COLLATE "C" NOT NULL,
    subject text COLLATE "C" NOT NULL, due_at timestamptz NOT NULL, owner text COLLATE "C",
    claimed_at timestamptz);
  CREATE INDEX deadlines_by_due ON deadlines (due_at);

  /*
   * Attempt limiters shared by every controller (failed sign-ins, MFA codes), so spreading attempts over
   * several controllers does not multiply the allowance: count attempts since window_start under key (what is
   * limited and for whom); blocked_until, when set, refuses further attempts until then.
   */
  CREATE TABLE attempt_counters (key text COLLATE "C" PRIMARY KEY, window_start timestamptz NOT NULL,
    count integer NOT NULL, blocked_until timestamptz);

  -- what a fresh controller has: the default auth policy, OpenZiti's built-in config types (with OpenZiti's
  -- ids, so clients naming them by id work), and the default edge router policies (every identity and every
  -- service may use every router)
  INSERT INTO auth_policies (id, name, doc, created_at, updated_at)
    VALUES ('default', 'Default', ${literal(JSON.stringify(DEFAULT_AUTH_POLICY))}, ${now}, ${now});
  INSERT INTO config_types (id, name, doc, created_at, updated_at)
    VALUES ${BUILTIN_CONFIG_TYPES.map(builtinConfigType).join(', ')};
  INSERT INTO edge_router_policies (id, name, doc, created_at, updated_at)
    VALUES ('all-identities-all-routers', 'all-identities-all-routers',
      '{"semantic":"AnyOf","identityRoles":["#all"],"edgeRouterRoles":["#all"],"tags":{}}', ${now}, ${now});
  INSERT INTO service_edge_router_policies (id, name, doc, created_at, updated_at)
    VALUES ('all-services-all-routers', 'all-services-all-routers',
      '{"semantic":"AnyOf","serviceRoles":["#all"],"edgeRouterRoles":["#all"],"tags":{}}', ${now}, ${now});
`;
