/**
 * One OpenZiti filter, two databases, one answer: the same identities are loaded into SQLite (a table shaped
 * like the store's `identities`) and into PostgreSQL (the real schema, migrated), every filter is compiled for
 * each with its own field declarations, run the way the document repository runs a filtered list, and both
 * must return the same ids in the same order, with the same total.
 *
 * The PostgreSQL database is made with an ICU en-US default collation on purpose: there, unlike in SQLite,
 * "alice" sorts before "Bob" and lower('É') is 'é' unless the SQL says COLLATE "C", so a missing COLLATE
 * shows up as a different order or match.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../controller/api-error.js';
import {
  compileFilter,
  type CompiledFilter,
  type FilterDialect,
  type FilterField,
} from '../../controller/store/filter/index.js';
import { migratePostgres } from '../../controller/store/postgres/migrate.js';
import { toPostgresPlaceholders } from '../../controller/store/postgres/sql.js';
import {
  documentFilterFields,
  type ExtraField,
} from '../../controller/store/repositories/document-filter.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { endPool } from '../helpers/pg-test-tools.js';

interface Identity {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  doc: Record<string, unknown>;
}

const JAN_2021 = '2021-01-01T00:00:00.000Z';

/** Upper and lower case, accents, SQL and LIKE metacharacters, missing fields, JSON nulls, ties. */
const IDENTITIES: Identity[] = [
  {
    id: 'id-01',
    name: 'Alice',
    createdAt: JAN_2021,
    updatedAt: '2021-02-01T00:00:00.000Z',
    doc: {
      type: 'User',
      isAdmin: true,
      disabled: false,
      size: 1,
      expiresAt: '2030-01-01T00:00:00.000Z',
      externalId: 'ext-a',
      roleAttributes: ['web', 'db'],
    },
  },
  {
    id: 'id-02',
    name: 'bob',
    createdAt: '2021-03-15T08:30:00.000Z',
    updatedAt: '2021-03-15T08:30:00.000Z',
    doc: { type: 'User', isAdmin: false, size: 5, roleAttributes: ['web'] },
  },
  {
    id: 'id-03',
    name: 'Émile',
    createdAt: '2022-06-01T00:00:00.000Z',
    updatedAt: '2022-07-01T00:00:00.000Z',
    doc: { type: 'Device', isAdmin: false, size: 2.5, roleAttributes: [] },
  },
  {
    id: 'id-04',
    name: 'émilie',
    createdAt: '2022-06-01T00:00:00.000Z',
    updatedAt: '2023-01-01T00:00:00.000Z',
    doc: { type: 'Device', size: -3, expiresAt: '2024-02-29T12:00:00.000Z', roleAttributes: ['Web'] },
  },
  {
    id: 'id-05',
    name: 'Zed 100%_done',
    createdAt: '2023-01-01T00:00:00.000Z',
    updatedAt: '2023-01-01T00:00:00.000Z',
    doc: { type: 'Router', size: 10, isAdmin: null },
  },
  {
    id: 'id-06',
    name: 'zed',
    createdAt: '2020-12-31T23:59:59.999Z',
    updatedAt: '2021-01-01T00:00:00.000Z',
    doc: { type: null, size: null, disabled: true, roleAttributes: ['db', 'ops'] },
  },
  {
    id: 'id-07',
    name: "x' OR 1=1 --",
    createdAt: '2024-12-31T23:59:59.999Z',
    updatedAt: '2024-12-31T23:59:59.999Z',
    doc: {},
  },
  {
    id: 'id-08',
    name: 'quote "q" \\ back',
    createdAt: '2021-07-04T00:00:00.000Z',
    updatedAt: '2021-07-04T00:00:00.000Z',
    doc: {
      type: 'User',
      size: 0,
      isAdmin: true,
      disabled: true,
      isDefaultAdmin: true,
      roleAttributes: ['ops'],
    },
  },
  {
    id: 'id-09',
    name: 'Straße',
    createdAt: '2022-01-01T00:00:00.000Z',
    updatedAt: '2022-01-02T00:00:00.000Z',
    doc: { type: 'user', size: 1000000, externalId: '', roleAttributes: ['web', 'ops', 'db'] },
  },
  {
    id: 'id-10',
    name: 'ALICE',
    createdAt: JAN_2021,
    updatedAt: JAN_2021,
    doc: {
      type: 'User',
      size: 1,
      isAdmin: false,
      expiresAt: '2020-06-01T12:00:00.000Z',
      roleAttributes: ['web'],
    },
  },
  {
    id: 'id-11',
    name: 'abcabc',
    createdAt: '2023-05-05T05:05:05.005Z',
    updatedAt: '2023-05-05T05:05:05.005Z',
    doc: { type: 'Device', size: 0.1, externalId: 'abc', roleAttributes: ['x?y'] },
  },
  {
    id: 'id-12',
    name: 'ab',
    createdAt: '2023-05-05T05:05:05.005Z',
    updatedAt: '2023-05-06T00:00:00.000Z',
    doc: { type: 'Router', disabled: false, externalId: 'b', roleAttributes: ['db'] },
  },
];

/** What the identities list declares, plus a number and a document datetime so every type is covered. */
const EXTRAS: readonly ExtraField[] = [
  ['isAdmin', 'boolean'],
  ['isDefaultAdmin', 'boolean'],
  ['disabled', 'boolean'],
  ['type', 'string'],
  ['externalId', 'string'],
  ['size', 'number'],
  ['expiresAt', 'datetime'],
];

const FIELDS: Record<FilterDialect, Record<string, FilterField>> = {
  sqlite: documentFilterFields('sqlite', 'identities', true, EXTRAS),
  postgres: documentFilterFields('postgres', 'identities', true, EXTRAS),
};

const FILTERS = [
  '',
  'true',
  'false',
  'name = "Alice"',
  'name != "Alice"',
  'name < "a"',
  'name >= "b" sort by name',
  'name > "Z" and name < "z"',
  'name contains "li"',
  'name contains ""',
  'name contains "%_"',
  'name icontains "ALI"',
  'name icontains "é"',
  'name icontains "É"',
  'name icontains "straSSe"',
  'name startswith "Zed"',
  'name startswith "zed"',
  'name endswith "bc"',
  'name endswith "ße"',
  'name endswith "abcabcabc"',
  'name not contains "e"',
  'name not icontains "E"',
  'name not startswith "a"',
  'name not endswith "c"',
  'name = "quote \\"q\\" \\\\ back"',
  'name in ["Alice", "bob", "nobody"]',
  'name not in ["Alice"]',
  'id in []',
  'id not in []',
  'id between "id-03" and "id-07"',
  'type = "User"',
  'type != "User"',
  'type = null',
  'type != null',
  'type is null',
  'type is not null sort by type desc',
  'type in ["User", "Device"] sort by type, name desc',
  'type not in ["User"]',
  'type icontains "user" sort by type',
  'isAdmin',
  'not isAdmin',
  'isAdmin = true',
  'isAdmin = false',
  'isAdmin != true',
  'isAdmin is null',
  'isDefaultAdmin != true',
  'disabled = true or isAdmin = true',
  'not not isAdmin',
  'size > 1',
  'size <= 2.5',
  'size = 1',
  'size = 0.1',
  'size != 1',
  'size between 0 and 5',
  'size not between 0 and 5',
  'size in [1, 10, -3]',
  'size >= -1e1 sort by size desc',
  'not (size > 1)',
  'sort by size',
  'sort by size desc skip 1 limit 4',
  'createdAt >= datetime(2022-01-01T00:00:00Z)',
  'createdAt between datetime(2021-01-01T00:00:00Z) and datetime(2022-06-01T00:00:00Z)',
  'createdAt = datetime(2021-01-01T00:00:00Z)',
  'createdAt != datetime(2021-01-01T00:00:00Z)',
  'updatedAt < datetime(2021-06-01T00:00:00+02:00)',
  'expiresAt > datetime(2025-01-01T00:00:00Z)',
  'expiresAt <= datetime(2024-02-29T12:00:00Z)',
  'expiresAt is null',
  'sort by createdAt desc',
  'sort by createdAt limit 3',
  'sort by updatedAt desc, name asc',
  'anyOf(roleAttributes) = "web"',
  'anyOf(roleAttributes) != "web"',
  'roleAttributes contains "db"',
  'roleAttributes not contains "db"',
  'anyOf(roleAttributes) in ["ops", "Web"]',
  'anyOf(roleAttributes) not in ["web"]',
  'allOf(roleAttributes) in ["web", "db"]',
  'allOf(roleAttributes) in []',
  'anyOf(roleAttributes) in []',
  'isEmpty(roleAttributes)',
  'not isEmpty(roleAttributes)',
  'roleAttributes contains "x?y"',
  'not (type = "User" and isAdmin) sort by name desc',
  '(type = "User" or type = "Device") and not name icontains "e"',
  'externalId = ""',
  'externalId startswith ""',
  'externalId endswith ""',
  'externalId is null',
  'true sort by name skip 2 limit 3',
  'sort by type asc, size desc',
  'sort by id desc',
  'limit 0',
  'skip 100',
];

/**
 * The list query the document repository runs for a filter: its predicate; its order with ties broken by id in
 * the direction of the last sort term (PostgreSQL's terms may end NULLS LAST), else by name; its page.
 */
function listQuery(compiled: CompiledFilter): { rows: string; count: string; params: unknown[] } {
  const clause = compiled.where ? `WHERE ${compiled.where}` : '';
  const tieBreak = /\bDESC( NULLS LAST)?$/.test(compiled.orderBy) ? 'DESC' : 'ASC';
  const order = compiled.orderBy ? `${compiled.orderBy}, identities.id ${tieBreak}` : 'identities.name';
  return {
    rows: `SELECT identities.id FROM identities ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`,
    count: `SELECT count(*) AS n FROM identities ${clause}`,
    params: compiled.params,
  };
}

const pageOf = (compiled: CompiledFilter) => [compiled.limit ?? 1000, compiled.offset ?? 0];

interface Answer {
  ids: string[];
  total: number;
}

let server: PostgresServer;
let sqlite: Database.Database;
let pool: pg.Pool;

function sqliteAnswer(filter: string): Answer {
  const compiled = compileFilter(filter, FIELDS.sqlite);
  const q = listQuery(compiled);
  const rows = sqlite.prepare(q.rows).all(...q.params, ...pageOf(compiled)) as { id: string }[];
  const total = sqlite.prepare(q.count).get(...q.params) as { n: number };
  return { ids: rows.map((r) => r.id), total: total.n };
}

async function postgresAnswer(filter: string): Promise<Answer> {
  const compiled = compileFilter(filter, FIELDS.postgres, 'postgres');
  const q = listQuery(compiled);
  const rows = await pool.query<{ id: string }>(toPostgresPlaceholders(q.rows), [
    ...q.params,
    ...pageOf(compiled),
  ]);
  const total = await pool.query<{ n: string }>(toPostgresPlaceholders(q.count), q.params);
  return { ids: rows.rows.map((r) => r.id), total: Number(total.rows[0]!.n) };
}

/** A database whose default collation is ICU en-US: not bytewise, and lower() folds every letter. */
async function createIcuDatabase(): Promise<string> {
  const name = `filters_${Date.now()}`;
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  try {
    await admin.query(
      `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`,
    );
  } finally {
    await admin.end();
  }
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

beforeAll(async () => {
  server = await startPostgres();
  pool = new pg.Pool({ connectionString: await createIcuDatabase(), max: 2 });
  await migratePostgres(pool);
  sqlite = new Database(':memory:');
  sqlite.exec(`CREATE TABLE identities (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, doc TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
  const insert = 'INSERT INTO identities (id, name, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)';
  for (const i of IDENTITIES) {
    const values = [i.id, i.name, JSON.stringify(i.doc), i.createdAt, i.updatedAt];
    sqlite.prepare(insert).run(...values);
    await pool.query(toPostgresPlaceholders(insert), values);
  }
});

afterAll(async () => {
  sqlite?.close();
  if (pool) await endPool(pool);
  await server?.stop();
});

describe('filters answer alike in SQLite and PostgreSQL', () => {
  it.each(FILTERS)('%j', async (filter) => {
    expect(await postgresAnswer(filter)).toEqual(sqliteAnswer(filter));
  });

  it('answer something for most filters, so two empty answers cannot pass for agreement', () => {
    const answered = FILTERS.filter((f) => sqliteAnswer(f).ids.length > 0);
    expect(answered.length).toBeGreaterThan(FILTERS.length * 0.8);
  });
});

describe('filters answer what SQLite answers (checked by hand)', () => {
  it.each([
    // bytewise order: upper case, then lower case, then accented letters
    [
      '',
      [
        'id-10',
        'id-01',
        'id-09',
        'id-05',
        'id-12',
        'id-11',
        'id-02',
        'id-08',
        'id-07',
        'id-06',
        'id-03',
        'id-04',
      ],
    ],
    ['name icontains "ALI"', ['id-10', 'id-01']],
    // lower() folds ASCII letters only: 'Émile' is not 'émile'
    ['name icontains "é"', ['id-04']],
    ['name icontains "É"', ['id-03']],
    // contains is case-sensitive
    ['name contains "LI"', ['id-10']],
    ['name endswith "ße"', ['id-09']],
    ['name contains "%_"', ['id-05']],
    // NULL and missing are neither "User" nor true
    ['type != "User"', ['id-09', 'id-05', 'id-12', 'id-11', 'id-07', 'id-06', 'id-03', 'id-04']],
    [
      'not isAdmin',
      ['id-10', 'id-09', 'id-05', 'id-12', 'id-11', 'id-02', 'id-07', 'id-06', 'id-03', 'id-04'],
    ],
    // NULLs first when ascending, ties by id
    ['sort by size limit 5', ['id-06', 'id-07', 'id-12', 'id-04', 'id-08']],
    ['sort by size desc limit 3', ['id-09', 'id-05', 'id-02']],
    // half-open: the upper bound is out
    ['size between 0 and 5', ['id-10', 'id-01', 'id-11', 'id-08', 'id-03']],
    [
      'allOf(roleAttributes) in ["web", "db"]',
      ['id-10', 'id-01', 'id-05', 'id-12', 'id-02', 'id-07', 'id-03'],
    ],
    ['isEmpty(roleAttributes)', ['id-05', 'id-07', 'id-03']],
    ['roleAttributes contains "x?y"', ['id-11']],
  ])('%j', async (filter, ids) => {
    expect(sqliteAnswer(filter).ids).toEqual(ids);
    expect((await postgresAnswer(filter)).ids).toEqual(ids);
  });

  it('refuse the same operators on roleAttributes, with the same error', () => {
    const error = (dialect: FilterDialect) => {
      try {
        compileFilter('roleAttributes = "web"', FIELDS[dialect], dialect);
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        return { message: (e as ApiError).message, status: (e as ApiError).status };
      }
      throw new Error('expected an error');
    };
    expect(error('postgres')).toEqual(error('sqlite'));
  });
});

describe('PostgreSQL placeholders', () => {
  it('numbers ? in order', () => {
    expect(toPostgresPlaceholders('a = ? AND b IN (?, ?) LIMIT ?')).toBe('a = $1 AND b IN ($2, $3) LIMIT $4');
    expect(toPostgresPlaceholders('SELECT 1')).toBe('SELECT 1');
  });

  it('meet no literal ? in compiled filters: one ? per parameter, none left after numbering', () => {
    for (const filter of FILTERS) {
      const compiled = compileFilter(filter, FIELDS.postgres, 'postgres');
      const sql = `${compiled.where} ${compiled.orderBy}`;
      expect(sql.split('?').length - 1, filter).toBe(compiled.params.length);
      expect(toPostgresPlaceholders(sql), filter).not.toContain('?');
    }
  });
});

describe('the identity sort indexes', () => {
  /** The plan of the identities list sorted by `sort`, with scans and sorts priced out where an index serves. */
  async function plan(sort: string): Promise<string> {
    const compiled = compileFilter(`${sort} limit 25`, FIELDS.postgres, 'postgres');
    const q = listQuery(compiled);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_sort = off');
      const explained = await client.query(`EXPLAIN ${toPostgresPlaceholders(q.rows)}`, [
        ...q.params,
        ...pageOf(compiled),
      ]);
      await client.query('ROLLBACK');
      return explained.rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      client.release();
    }
  }

  it.each([
    ['sort by type', 'identities_by_type'],
    ['sort by type desc', 'identities_by_type'],
    ['sort by createdAt', 'identities_by_created'],
    ['sort by createdAt desc', 'identities_by_created'],
  ])('%s reads %s', async (sort, index) => {
    const text = await plan(sort);
    expect(text).toContain(index);
    expect(text).not.toMatch(/\bSort\b/);
  });
});
