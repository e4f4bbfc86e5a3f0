/**
 * The PostgreSQL schema and its migration runner against a real server (test/helpers/postgres-server.ts): the
 * schema applies to an empty database, controllers starting together migrate it exactly once, and the access
 * outbox's triggers write their rows and wake other connections only when the writing transaction commits.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILTIN_CONFIG_TYPES,
  HOST_V1_SCHEMA,
  INTERCEPT_V1_SCHEMA,
} from '../../controller/store/builtin-config-types.js';
import { migrate as migrateSqlite } from '../../controller/store/database.js';
import { MIGRATIONS as SQLITE_MIGRATIONS } from '../../controller/store/migrations.js';
import { migratePostgres } from '../../controller/store/postgres/migrate.js';
import { POSTGRES_MIGRATIONS } from '../../controller/store/postgres/migrations.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { addApiSession, endPool } from '../helpers/pg-test-tools.js';

/** Long enough for a notification sent now to have arrived, were one sent. */
const QUIET_MS = 300;
const NOTIFY_TIMEOUT_MS = 5_000;

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

async function withPool<T>(url: string, use: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    return await use(pool);
  } finally {
    await endPool(pool);
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A schema as sets of comparable lines: tables' columns, index names, unique keys, foreign keys. */
interface SchemaOutline {
  columns: string[];
  indexes: string[];
  uniqueKeys: string[];
  foreignKeys: string[];
}

function sqliteOutline(): SchemaOutline {
  const db = new Database(':memory:');
  try {
    migrateSqlite(db);
    const all = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[];
    const tables = all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence'",
    ).map((t) => t.name);
    const outline: SchemaOutline = { columns: [], indexes: [], uniqueKeys: [], foreignKeys: [] };
    for (const table of tables) {
      const columns = all<{ name: string; pk: number }>('SELECT name, pk FROM pragma_table_info(?)', table);
      outline.columns.push(...columns.map((c) => `${table}.${c.name}`));
      const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
      outline.uniqueKeys.push(`${table}(${pk.map((c) => c.name).join(', ')})`);
      const indexes = all<{ name: string; unique: number; origin: string; partial: number }>(
        'SELECT name, "unique", origin, partial FROM pragma_index_list(?)',
        table,
      );
      for (const index of indexes) {
        if (index.origin === 'c') outline.indexes.push(index.name);
        if (!index.unique || index.origin === 'pk') continue;
        // An expression's column has no name (identities' unique externalId, migration 18).
        const keyColumns = all<{ name: string | null }>(
          'SELECT name FROM pragma_index_info(?) ORDER BY seqno',
          index.name,
        );
        outline.uniqueKeys.push(
          `${table}(${keyColumns.map((c) => c.name ?? 'expression').join(', ')})${index.partial ? ' partial' : ''}`,
        );
      }
      const foreignKeys = all<{ from: string; table: string; to: string; on_delete: string }>(
        'SELECT "from", "table", "to", on_delete FROM pragma_foreign_key_list(?)',
        table,
      );
      outline.foreignKeys.push(
        ...foreignKeys.map((f) => `${table}.${f.from} -> ${f.table}.${f.to} ON DELETE ${f.on_delete}`),
      );
    }
    return outline;
  } finally {
    db.close();
  }
}

async function postgresOutline(pool: pg.Pool, tables: readonly string[]): Promise<SchemaOutline> {
  const lines = async (sql: string) =>
    (await pool.query<{ line: string }>(sql, [tables])).rows.map((r) => r.line);
  // attnum 0: an expression (as SQLite's nameless column)
  const keyColumns = `(SELECT string_agg(coalesce(a.attname, 'expression'), ', ' ORDER BY k.n)
    FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
    LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)`;
  return {
    columns: await lines(
      `SELECT table_name || '.' || column_name AS line FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = ANY($1)`,
    ),
    // the indexes the schema names, not those its constraints make
    indexes: await lines(
      `SELECT c.relname AS line FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       WHERE t.relname = ANY($1) AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    ),
    uniqueKeys: await lines(
      `SELECT t.relname || '(' || ${keyColumns} || ')' || CASE WHEN i.indpred IS NULL THEN '' ELSE ' partial' END
         AS line
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid WHERE i.indisunique AND t.relname = ANY($1)`,
    ),
    foreignKeys: await lines(
      `SELECT t.relname || '.' || a.attname || ' -> ' || r.relname || '.' || ra.attname || ' ON DELETE ' ||
         CASE k.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT'
           WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' END AS line
       FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
       JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
       JOIN pg_attribute ra ON ra.attrelid = k.confrelid AND ra.attnum = k.confkey[1]
       WHERE k.contype = 'f' AND t.relname = ANY($1)`,
    ),
  };
}

describe('migratePostgres', () => {
  it('makes the tables, columns, indexes, unique keys and foreign keys of the SQLite schema', async () => {
    const sqlite = sqliteOutline();
    const sqliteTables = [...new Set(sqlite.columns.map((c) => c.split('.')[0]!))];
    const url = await server.createDatabase();
    await withPool(url, async (pool) => {
      await migratePostgres(pool);
      const postgres = await postgresOutline(pool, sqliteTables);
      const sorted = (o: SchemaOutline) => ({
        columns: [...o.columns].sort(),
        indexes: [...o.indexes].sort(),
        uniqueKeys: [...o.uniqueKeys].sort(),
        foreignKeys: [...o.foreignKeys].sort(),
      });
      // What PostgreSQL adds: the write order SQLite reads from rowid, and the writing transaction of an
      // outbox row; the recovery codes' index takes that order too.
      const expected = sorted({
        ...sqlite,
        columns: [...sqlite.columns, 'mfa_recovery_codes.seq', 'access_outbox.xact'],
        indexes: [...sqlite.indexes, 'access_outbox_by_xact'],
      });
      expect(sorted(postgres)).toEqual(expected);
      // An edge session, and an API session's posture row, go with their API session, on both.
      for (const outline of [sqlite, postgres])
        expect(outline.foreignKeys).toEqual(
          expect.arrayContaining([
            'edge_sessions.api_session_id -> api_sessions.id ON DELETE CASCADE',
            'posture_api_sessions.api_session_id -> api_sessions.id ON DELETE CASCADE',
          ]),
        );
    });
  });

  it('applies the schema to an empty database, with what a fresh controller has, and then has nothing to do', async () => {
    const url = await server.createDatabase();
    await withPool(url, async (pool) => {
      await migratePostgres(pool);
      const versions = await pool.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));

      const tables = await pool.query(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
      );
      expect(tables.rows.map((r) => r.tablename)).toEqual(
        [
          'access_outbox',
          'api_sessions',
          'attempt_counters',
          'audit_events',
          'auth_policies',
          'authenticators',
          'config_types',
          'configs',
          'deadlines',
          'edge_router_policies',
          'edge_routers',
          'edge_sessions',
          'enrollments',
          'external_jwt_signers',
          'failed_service_requests',
          'identities',
          'mfa_audit_events',
          'mfa_enrollments',
          'mfa_recovery_codes',
          'policy_roles',
          'posture_api_sessions',
          'posture_check_exception_history',
          'posture_check_exceptions',
          'posture_check_states',
          'posture_checks',
          'posture_facts',
          'posture_processes',
          // PostgreSQL only: which instance each router is linked to (SQLite is one instance)
          'router_presence',
          'role_attributes',
          'schema_migrations',
          'service_changes',
          'service_edge_router_policies',
          'service_policies',
          'services',
          // event delivery (migration 12): webhook subscriptions and the delivery queue
          'webhooks',
          'event_deliveries',
        ].sort(),
      );

      const policy = await pool.query("SELECT doc, created_at FROM auth_policies WHERE id = 'default'");
      expect(policy.rows[0].doc.primary.updb.minPasswordLength).toBe(5);
      expect(policy.rows[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const types = await pool.query('SELECT id, name, doc FROM config_types ORDER BY name');
      expect(types.rows).toEqual(
        [...BUILTIN_CONFIG_TYPES]
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((t) => ({ id: t.id, name: t.name, doc: { schema: t.schema, target: 'service', tags: {} } })),
      );
      const routerPolicies = await pool.query(
        'SELECT id FROM edge_router_policies UNION ALL SELECT id FROM service_edge_router_policies',
      );
      expect(routerPolicies.rows.map((r) => r.id)).toEqual([
        'all-identities-all-routers',
        'all-services-all-routers',
      ]);

      await migratePostgres(pool);
      expect((await pool.query('SELECT count(*)::int AS n FROM schema_migrations')).rows[0].n).toBe(
        POSTGRES_MIGRATIONS.length,
      );
    });
  });

  it("replaces a stored host.v1 schema from before forwarding with OpenZiti's, on PostgreSQL and SQLite alike", async () => {
    // The schema migrations 4 (SQLite) and 1 (PostgreSQL) stored before host.v1 had its forward fields.
    const before = {
      type: 'object',
      required: ['protocol', 'address', 'port'],
      properties: { protocol: { type: 'string', enum: ['tcp', 'udp'] } },
      additionalProperties: true,
    };
    const oldDoc = JSON.stringify({ schema: before, target: 'service', tags: {} });
    const stamp = '2024-05-01T10:00:00.000Z';
    const expected = JSON.parse(JSON.stringify(HOST_V1_SCHEMA)) as unknown;

    const url = await server.createDatabase();
    await withPool(url, async (pool) => {
      await migratePostgres(pool, POSTGRES_MIGRATIONS.slice(0, 4));
      await pool.query(`UPDATE config_types SET doc = $1::jsonb, updated_at = $2 WHERE name = 'host.v1'`, [
        oldDoc,
        stamp,
      ]);
      await migratePostgres(pool);
      const rows = await pool.query(`SELECT name, doc, updated_at FROM config_types ORDER BY name`);
      const host = rows.rows.find((r) => r.name === 'host.v1');
      expect(host.doc).toEqual({ schema: expected, target: 'service', tags: {} });
      expect(host.updated_at).not.toBe(stamp);
      expect(rows.rows.find((r) => r.name === 'intercept.v1').doc.schema).toEqual(
        JSON.parse(JSON.stringify(INTERCEPT_V1_SCHEMA)),
      );
    });

    const db = new Database(':memory:');
    try {
      // A database at migration 12 as an older controller left it: its host.v1 holds the old schema.
      migrateSqlite(db);
      db.prepare(`UPDATE config_types SET doc = ?, updated_at = ? WHERE name = 'host.v1'`).run(oldDoc, stamp);
      db.pragma('user_version = 12');
      migrateSqlite(db);
      const host = db.prepare(`SELECT doc, updated_at FROM config_types WHERE name = 'host.v1'`).get() as {
        doc: string;
        updated_at: string;
      };
      expect(JSON.parse(host.doc)).toEqual({ schema: expected, target: 'service', tags: {} });
      expect(host.updated_at).not.toBe(stamp);
    } finally {
      db.close();
    }
  });

  it('makes externalId unique: blanks become null, a duplicate stays with the oldest identity (migration 8)', async () => {
    const url = await server.createDatabase();
    await withPool(url, async (pool) => {
      // Up to the migration before the external JWT signers' (number 8).
      await migratePostgres(pool, POSTGRES_MIGRATIONS.slice(0, 7));
      const add = (id: string, externalId: string, createdAt: string) =>
        pool.query(
          `INSERT INTO identities (id, name, doc, created_at, updated_at) VALUES ($1, $1, $2::jsonb, $3, $3)`,
          [id, JSON.stringify({ externalId, roleAttributes: [] }), createdAt],
        );
      await add('a', '', '2026-01-01T00:00:00.000Z');
      await add('b', '', '2026-01-02T00:00:00.000Z');
      await add('old', 'carol', '2026-01-01T00:00:00.000Z');
      await add('new', 'carol', '2026-02-01T00:00:00.000Z');
      await migratePostgres(pool);
      const rows = await pool.query(`SELECT id, doc->>'externalId' AS e FROM identities ORDER BY id`);
      expect(Object.fromEntries(rows.rows.map((r) => [r.id, r.e]))).toEqual({
        a: null,
        b: null,
        old: 'carol',
        new: null,
      });
      await expect(add('again', 'carol', '2026-03-01T00:00:00.000Z')).rejects.toMatchObject({
        code: '23505',
      });
    });
  });

  it('hashes the edge-session tokens stored before the upgrade, on PostgreSQL and SQLite alike', async () => {
    const token = 'e2b0c1a4-7d6f-4c3b-9a8e-1f2d3c4b5a69';
    const hash = createHash('sha256').update(token).digest('hex');
    const legacyRow = `('e1', '${token}', 'identity-1', 'api-session-1', 'service-1', 'Dial',
      '2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.000Z')`;
    const columns = 'id, token, identity_id, api_session_id, service_id, type, created_at, updated_at';
    // Its API session: the upgrade keeps only the edge sessions whose API session exists.
    const apiSessionRow = `INSERT INTO api_sessions (id, token_hash, identity_id, authenticator_id, doc,
      created_at, updated_at, last_activity_at) VALUES ('api-session-1', 'api-token-hash', 'identity-1', 'a',
      '{}', '2024-05-01T09:00:00.000Z', '2024-05-01T09:00:00.000Z', '2024-05-01T09:00:00.000Z')`;

    const url = await server.createDatabase();
    await withPool(url, async (pool) => {
      await migratePostgres(pool, POSTGRES_MIGRATIONS.slice(0, 2));
      await pool.query(apiSessionRow);
      await pool.query(`INSERT INTO edge_sessions (${columns}) VALUES ${legacyRow}`);
      await migratePostgres(pool);
      const rows = await pool.query('SELECT * FROM edge_sessions');
      expect(rows.rows).toEqual([expect.objectContaining({ id: 'e1', token_hash: hash })]);
      expect(JSON.stringify(rows.rows)).not.toContain(token);
    });

    const db = new Database(':memory:');
    try {
      db.function('postern_outbox_written', () => null);
      for (const sql of SQLITE_MIGRATIONS.slice(0, 10)) db.exec(sql);
      db.pragma('user_version = 10');
      db.exec(apiSessionRow);
      db.exec(`INSERT INTO edge_sessions (${columns}) VALUES ${legacyRow}`);
      migrateSqlite(db);
      const rows = db.prepare('SELECT * FROM edge_sessions').all();
      expect(rows).toEqual([expect.objectContaining({ id: 'e1', token_hash: hash })]);
      expect(JSON.stringify(rows)).not.toContain(token);
    } finally {
      db.close();
    }
  });

  it('keeps the shapes SQLite keeps: ISO times only, cascades where SQLite cascades', async () => {
    const url = await server.createDatabase();
    await withPool(url, async (pool) => {
      await migratePostgres(pool);
      const now = new Date().toISOString();
      await expect(
        pool.query(
          `INSERT INTO identities (id, name, doc, created_at, updated_at) VALUES ('i', 'n', '{}', $1, $1)`,
          ['2021-01-01 00:00:00'],
        ),
      ).rejects.toThrow(/iso_timestamp/);
      await pool.query(
        `INSERT INTO identities (id, name, doc, created_at, updated_at) VALUES ('i', 'n', '{}', $1, $1)`,
        [now],
      );
      await pool.query(
        `INSERT INTO enrollments (id, identity_id, method, token_hash, nonce, issued_at, expires_at, created_at,
           updated_at) VALUES ('e', 'i', 'ott', 'h', 'n', $1, $1, $1, $1)`,
        [now],
      );
      await pool.query(
        `INSERT INTO mfa_enrollments (identity_id, id, secret, created_at, updated_at)
         VALUES ('i', 'm', '\\x00', $1, $1)`,
        [now],
      );
      await pool.query(`INSERT INTO mfa_recovery_codes (id, identity_id, code) VALUES ('c1', 'i', '\\x01')`);
      await pool.query(`DELETE FROM identities WHERE id = 'i'`);
      expect((await pool.query('SELECT count(*)::int AS n FROM enrollments')).rows[0].n).toBe(0);
      await pool.query(`DELETE FROM mfa_enrollments WHERE identity_id = 'i'`);
      expect((await pool.query('SELECT count(*)::int AS n FROM mfa_recovery_codes')).rows[0].n).toBe(0);

      // An edge session and a posture row need their API session, and go with it.
      const addEdgeSession = (apiSessionId: string) =>
        pool.query(
          `INSERT INTO edge_sessions (id, token_hash, identity_id, api_session_id, service_id, type, created_at,
             updated_at) VALUES ('es', 'h', 'i', $1, 's', 'Dial', $2, $2)`,
          [apiSessionId, now],
        );
      await expect(addEdgeSession('a')).rejects.toThrow(/foreign key/);
      await addApiSession(pool, 'a', 'i', now);
      await addEdgeSession('a');
      await pool.query(`INSERT INTO posture_api_sessions (api_session_id, identity_id) VALUES ('a', 'i')`);
      await pool.query(`DELETE FROM api_sessions WHERE id = 'a'`);
      expect((await pool.query('SELECT count(*)::int AS n FROM edge_sessions')).rows[0].n).toBe(0);
      expect((await pool.query('SELECT count(*)::int AS n FROM posture_api_sessions')).rows[0].n).toBe(0);
    });
  });

  it('migrates once when five controllers start together, each with its own pool', async () => {
    const url = await server.createDatabase();
    // A second, test-only step that counts how often it runs: a step run twice would count 2 (and the first
    // step, run twice, would fail on objects that already exist).
    const counted = [
      ...POSTGRES_MIGRATIONS,
      `CREATE TABLE IF NOT EXISTS step_runs (at timestamptz NOT NULL); INSERT INTO step_runs VALUES (now());`,
    ];
    const pools = Array.from({ length: 5 }, () => new pg.Pool({ connectionString: url, max: 1 }));
    try {
      await Promise.all(pools.map((pool) => migratePostgres(pool, counted)));
      const pool = pools[0]!;
      const versions = await pool.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.rows.map((r) => r.version)).toEqual(counted.map((_, i) => i + 1));
      expect((await pool.query('SELECT count(*)::int AS n FROM step_runs')).rows[0].n).toBe(1);
      // Every runner let go of the lock: none is held by the connections still open in the pools.
      const locks = await pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
      expect(locks.rows[0].n).toBe(0);
    } finally {
      await Promise.all(pools.map(endPool));
    }
  });

  it('rolls back a failing step with its record, keeps the steps before it, and releases the lock', async () => {
    const url = await server.createDatabase();
    await withPool(url, async (pool) => {
      const broken = [...POSTGRES_MIGRATIONS, 'CREATE TABLE half_done (n int); SELECT no_such_function();'];
      await expect(migratePostgres(pool, broken)).rejects.toThrow(/no_such_function/);
      const versions = await pool.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(versions.rows.map((r) => r.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));
      expect((await pool.query("SELECT to_regclass('half_done') AS t")).rows[0].t).toBeNull();
      const locks = await pool.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
      expect(locks.rows[0].n).toBe(0);
    });
  });
});

describe('the access outbox', () => {
  let url: string;
  let pool: pg.Pool;
  let listener: pg.Client;
  const heard: string[] = [];

  beforeAll(async () => {
    url = await server.createDatabase();
    pool = new pg.Pool({ connectionString: url, max: 3 });
    await migratePostgres(pool);
    listener = new pg.Client({ connectionString: url });
    await listener.connect();
    listener.on('notification', (n) => {
      if (n.channel === 'postern_outbox') heard.push(n.payload ?? '');
    });
    await listener.query('LISTEN postern_outbox');
    // The API session of the edge sessions written below (an edge session needs its own).
    await addApiSession(pool, 'api-session-1', 'identity-1');
  });
  afterAll(async () => {
    await listener?.end();
    if (pool) await endPool(pool);
  });

  /** Resolves once `count` notifications have been heard in all. */
  async function heardAtLeast(count: number): Promise<void> {
    const deadline = Date.now() + NOTIFY_TIMEOUT_MS;
    while (heard.length < count) {
      if (Date.now() > deadline) throw new Error(`heard ${heard.length} notifications, expected ${count}`);
      await delay(10);
    }
  }

  async function inTransaction<T>(use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      return await use(client);
    } finally {
      client.release();
    }
  }

  const addSession = (client: pg.ClientBase, id: string, at: string) =>
    client.query(
      `INSERT INTO edge_sessions (id, token_hash, identity_id, api_session_id, service_id, type, created_at, updated_at)
       VALUES ($1, $1 || '-token-hash', 'identity-1', 'api-session-1', 'service-1', 'Dial', $2, $2)`,
      [id, at],
    );

  it('writes a row for a new edge session, and wakes listeners only after COMMIT', async () => {
    const at = '2024-05-01T10:00:00.000Z';
    const before = heard.length;
    const seq = await inTransaction(async (client) => {
      await addSession(client, 'session-1', at);
      const rows = await client.query(
        `SELECT seq, kind, entity_id, identity_id, api_session_id, at FROM access_outbox WHERE entity_id = 'session-1'`,
      );
      expect(rows.rows).toEqual([
        {
          seq: expect.any(String),
          kind: 'session.added',
          entity_id: 'session-1',
          identity_id: 'identity-1',
          api_session_id: 'api-session-1',
          at,
        },
      ]);
      await delay(QUIET_MS);
      expect(heard.length).toBe(before);
      await client.query('COMMIT');
      return rows.rows[0].seq as string;
    });
    await heardAtLeast(before + 1);
    expect(heard.slice(before)).toEqual([seq]);
  });

  it('writes nothing and wakes nobody when the transaction rolls back', async () => {
    const before = heard.length;
    const outboxBefore = (await pool.query('SELECT count(*)::int AS n FROM access_outbox')).rows[0].n;
    await inTransaction(async (client) => {
      await client.query(`DELETE FROM edge_sessions WHERE id = 'session-1'`);
      await addSession(client, 'session-2', '2024-05-01T11:00:00.000Z');
      expect((await client.query('SELECT count(*)::int AS n FROM access_outbox')).rows[0].n).toBe(
        outboxBefore + 2,
      );
      await client.query('ROLLBACK');
    });
    expect((await pool.query('SELECT count(*)::int AS n FROM access_outbox')).rows[0].n).toBe(outboxBefore);
    // A committed write afterwards: its notification is the next one heard, so none came from the rollback.
    await pool.query(
      `INSERT INTO service_changes (identity_id, last_change_at) VALUES ('identity-1', '2024-05-01T12:00:00.000Z')`,
    );
    await heardAtLeast(before + 1);
    await delay(QUIET_MS);
    const last = await pool.query('SELECT max(seq) AS seq FROM access_outbox');
    expect(heard.slice(before)).toEqual([last.rows[0].seq]);
  });

  it('writes session.removed when an edge session goes, and access.changed on every mark, upserts included', async () => {
    const before = heard.length;
    const start = new Date();
    await pool.query(`DELETE FROM edge_sessions WHERE id = 'session-1'`);
    await pool.query(
      `INSERT INTO service_changes (identity_id, last_change_at) VALUES ('identity-1', '2024-05-02T00:00:00.000Z')
       ON CONFLICT (identity_id) DO UPDATE SET last_change_at = excluded.last_change_at`,
    );
    const rows = await pool.query(
      `SELECT seq, kind, entity_id, identity_id, api_session_id, at FROM access_outbox ORDER BY seq`,
    );
    const [added, firstChange, removed, secondChange] = rows.rows;
    expect(rows.rows.map((r) => r.kind)).toEqual([
      'session.added',
      'access.changed',
      'session.removed',
      'access.changed',
    ]);
    expect(added.entity_id).toBe('session-1');
    expect(firstChange).toMatchObject({ entity_id: 'identity-1', api_session_id: null });
    expect(removed).toMatchObject({ entity_id: 'session-1', api_session_id: 'api-session-1' });
    // The database's clock, written as the API writes times.
    expect(new Date(removed.at).getTime()).toBeGreaterThanOrEqual(start.getTime() - 5_000);
    expect(new Date(removed.at).toISOString()).toBe(removed.at);
    expect(secondChange).toMatchObject({ identity_id: 'identity-1', at: '2024-05-02T00:00:00.000Z' });
    await heardAtLeast(before + 2);
    expect(heard.slice(before)).toEqual([removed.seq, secondChange.seq]);
  });
});
