import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { compileFilter, type FilterField } from '../../../controller/store/filter/index.js';

/** Strings a filter can spell: control characters only as the escapes \\n \\r \\t \\f. */
const writable = (s: string) => [...s].every((ch) => ch >= ' ' || '\n\r\t\f'.includes(ch));

/*
 * Runs compiled filters against a real SQLite table shaped like the store's (columns plus a JSON doc), so the SQL
 * — placeholders, json_extract values, NULLs, booleans as 1/0, ISO datetimes — is proven, not just its text.
 */

const rows = [
  {
    id: 'a',
    name: 'Alpha',
    doc: {
      createdAt: '2021-01-01T00:00:00.000Z',
      size: 1,
      isAdmin: true,
      type: 'Dial',
      roleAttributes: ['web', 'db'],
    },
  },
  {
    id: 'b',
    name: 'beta',
    doc: {
      createdAt: '2022-06-15T12:00:00.000Z',
      size: 5,
      isAdmin: false,
      type: 'Bind',
      roleAttributes: ['web'],
    },
  },
  {
    id: 'c',
    name: 'Gamma 100%_done',
    doc: { createdAt: '2023-03-01T00:00:00.000Z', size: 10, isAdmin: true, type: 'Dial', roleAttributes: [] },
  },
  { id: 'd', name: "x' OR 1=1 --", doc: { createdAt: '2024-12-31T23:59:59.999Z', size: 2.5 } },
  { id: 'e', name: 'quote "q" \\ back\nline', doc: { size: 7, isAdmin: false, roleAttributes: ['db'] } },
];
const ALL = rows.map((r) => r.id);

const attrs = "json_each(items.doc, '$.roleAttributes')";
/** A set-valued field the way a list route could declare roleAttributes. */
function roleAttributes(op: string, values: unknown[]): { sql: string; params: unknown[] } {
  const marks = values.map(() => '?').join(', ');
  switch (op) {
    case 'anyOf =':
    case 'contains':
      return { sql: `EXISTS (SELECT 1 FROM ${attrs} WHERE value = ?)`, params: values };
    case 'not contains':
      return { sql: `NOT EXISTS (SELECT 1 FROM ${attrs} WHERE value = ?)`, params: values };
    case 'anyOf in':
      return { sql: `EXISTS (SELECT 1 FROM ${attrs} WHERE value IN (${marks || 'NULL'}))`, params: values };
    case 'allOf in':
      return {
        sql: `NOT EXISTS (SELECT 1 FROM ${attrs} WHERE value NOT IN (${marks || 'NULL'}))`,
        params: values,
      };
    case 'isEmpty':
      return { sql: `coalesce(json_array_length(items.doc, '$.roleAttributes'), 0) = 0`, params: [] };
    default:
      throw new Error(`unsupported ${op}`);
  }
}

const fields: Record<string, FilterField> = {
  id: { sql: 'id', type: 'string' },
  name: { sql: 'name', type: 'string' },
  type: { sql: "json_extract(doc, '$.type')", type: 'string' },
  createdAt: { sql: "json_extract(doc, '$.createdAt')", type: 'datetime' },
  size: { sql: "json_extract(doc, '$.size')", type: 'number' },
  isAdmin: { sql: "json_extract(doc, '$.isAdmin')", type: 'boolean' },
  roleAttributes: { sql: "json_extract(doc, '$.roleAttributes')", type: 'string', custom: roleAttributes },
};

let db: Database.Database;
beforeAll(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE items (id TEXT PRIMARY KEY, name TEXT NOT NULL, doc TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO items (id, name, doc) VALUES (?, ?, ?)');
  for (const r of rows) insert.run(r.id, r.name, JSON.stringify(r.doc));
});
afterAll(() => db.close());

/** The ids a filter selects, in its sort order (id when it has none), with its skip and limit applied. */
function ids(filter: string): string[] {
  const q = compileFilter(filter, fields);
  const sql =
    `SELECT id FROM items${q.where ? ` WHERE ${q.where}` : ''} ORDER BY ${q.orderBy ? `${q.orderBy}, ` : ''}id ` +
    'LIMIT ? OFFSET ?';
  return (db.prepare(sql).all(...q.params, q.limit ?? -1, q.offset ?? 0) as { id: string }[]).map(
    (r) => r.id,
  );
}
/** Same, ignoring order. */
const set = (filter: string) => ids(filter).sort();

describe('compiled filters on SQLite', () => {
  it.each([
    ['', ALL],
    ['true', ALL],
    ['false', []],
    ['name = "Alpha"', ['a']],
    ['name = "alpha"', []],
    ['name != "Alpha"', ['b', 'c', 'd', 'e']],
    ['name < "a"', ['a', 'c']], // upper case sorts first, binary collation
    ['name >= "beta"', ['b', 'd', 'e']],
    ['name contains "lph"', ['a']],
    ['name contains "ALPHA"', []],
    ['name icontains "ALPHA"', ['a']],
    ['name contains ""', ALL],
    ['name not contains "a"', ['d']],
    ['name not icontains "A"', ['d']],
    ['name contains "%"', ['c']],
    ['name contains "_"', ['c']],
    ['name contains "%_d"', ['c']],
    ['name startswith "Al"', ['a']],
    ['name startswith "lpha"', []],
    ['name startswith ""', ALL],
    ['name not startswith "Al"', ['b', 'c', 'd', 'e']],
    ['name endswith "done"', ['c']],
    ['name endswith "Gamma 100%_done"', ['c']],
    ['name endswith "xGamma 100%_done"', []],
    ['name endswith "a"', ['a', 'b']],
    ['name endswith ""', ALL],
    ['name not endswith "a"', ['c', 'd', 'e']],
    ['id in ["a", "c", "zz"]', ['a', 'c']],
    ['id not in ["a", "c"]', ['b', 'd', 'e']],
    ['id in []', []],
    ['id not in []', ALL],
    ['size = 2.5', ['d']],
    ['size > 5', ['c', 'e']],
    ['size >= 5', ['b', 'c', 'e']],
    ['size < 2.5', ['a']],
    ['size <= 2.5', ['a', 'd']],
    ['size != 5', ['a', 'c', 'd', 'e']],
    ['size in [1, 10]', ['a', 'c']],
    ['size < 1e1', ['a', 'b', 'd', 'e']],
    ['size > -1', ALL],
    ['size between 1 and 5', ['a', 'd']], // half-open, as in OpenZiti
    ['size not between 1 and 5', ['b', 'c', 'e']],
    ['isAdmin = true', ['a', 'c']],
    ['isAdmin = false', ['b', 'e']],
    ['isAdmin != true', ['b', 'd', 'e']],
    ['isAdmin', ['a', 'c']],
    ['not isAdmin', ['b', 'd', 'e']],
    ['isAdmin is null', ['d']],
    ['isAdmin = null', ['d']],
    ['isAdmin is not null', ['a', 'b', 'c', 'e']],
    ['type = "Dial"', ['a', 'c']],
    ['type != "Dial"', ['b', 'd', 'e']],
    ['type not in ["Dial"]', ['b', 'd', 'e']],
    ['type not contains "ia"', ['b', 'd', 'e']],
    ['not type = "Dial"', ['b', 'd', 'e']],
    ['createdAt is null', ['e']],
    ['createdAt != null', ['a', 'b', 'c', 'd']],
    ['createdAt < datetime(2022-01-01T00:00:00Z)', ['a']],
    ['createdAt = datetime(2022-06-15T14:00:00+02:00)', ['b']],
    ['createdAt >= datetime(2022-06-15T14:00:00+02:00)', ['b', 'c', 'd']],
    ['createdAt > datetime(2024-12-31T23:59:59.998Z)', ['d']],
    ['createdAt > datetime(2024-12-31T23:59:59.999Z)', []],
    ['createdAt in [datetime(2021-01-01T00:00:00Z), datetime(2023-03-01T01:00:00+01:00)]', ['a', 'c']],
    ['createdAt between datetime(2021-01-01T00:00:00Z) and datetime(2023-03-01T00:00:00Z)', ['a', 'b']],
    ['not createdAt < datetime(2022-01-01T00:00:00Z)', ['b', 'c', 'd', 'e']],
    [String.raw`name = "quote \"q\" \\ back\nline"`, ['e']],
    [String.raw`name contains "\"q\""`, ['e']],
    [String.raw`name contains "\n"`, ['e']],
  ])('%s', (filter, expected) => {
    expect(set(filter)).toEqual(expected);
  });

  it('treats SQL in a value as a plain string', () => {
    expect(set(`name = "x' OR 1=1 --"`)).toEqual(['d']);
    expect(set(`name contains "' OR '1'='1"`)).toEqual([]);
    expect(set(`name = "\\" OR 1=1 --"`)).toEqual([]);
    expect(set(`id in ["a'); DROP TABLE items; --"]`)).toEqual([]);
    expect(set(`name icontains "x' or 1=1"`)).toEqual(['d']);
    expect(set('name endswith "1=1 --"')).toEqual(['d']);
    expect((db.prepare('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n).toBe(rows.length);
  });

  it('matches exactly the rows whose name equals any string', () => {
    const escape = (s: string) =>
      s.replace(
        /[\\"\n\r\t\f]/g,
        (ch) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t', '\f': '\\f' })[ch] ?? `\\${ch}`,
      );
    const names = fc.oneof(fc.constantFrom(...rows.map((r) => r.name)), fc.string().filter(writable));
    fc.assert(
      fc.property(names, (name) => {
        const expected = rows.filter((r) => r.name === name).map((r) => r.id);
        expect(set(`name = "${escape(name)}"`)).toEqual(expected);
        expect(set(`name contains "${escape(name)}"`)).toEqual(
          rows.filter((r) => r.name.includes(name)).map((r) => r.id),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('binds not tighter than and, and and tighter than or', () => {
    // or binding last: Alpha, or (beta and size > 100) → a; the other way round → nothing
    expect(set('name = "Alpha" or name = "beta" and size > 100')).toEqual(['a']);
    expect(set('(name = "Alpha" or name = "beta") and size > 100')).toEqual([]);
    // not binding first: (not isAdmin) and size > 1 → b, d, e; not (isAdmin and size > 1) would add a
    expect(set('not isAdmin and size > 1')).toEqual(['b', 'd', 'e']);
    expect(set('not (isAdmin and size > 1)')).toEqual(['a', 'b', 'd', 'e']);
    expect(set('isAdmin and size > 1 or id = "e"')).toEqual(['c', 'e']);
    expect(set('isAdmin and (size > 1 or id = "e")')).toEqual(['c']);
    expect(set('not not isAdmin')).toEqual(['a', 'c']);
    expect(set('not (type = "Dial" or size > 6)')).toEqual(['b', 'd']);
  });

  it("runs ZAC's queries", () => {
    expect(ids('name contains "" sort by name asc skip 0 limit 25')).toEqual(['a', 'c', 'b', 'e', 'd']);
    expect(ids('name contains "" sort by name asc skip 2 limit 2')).toEqual(['b', 'e']);
    expect(ids('true limit 1')).toEqual(['a']);
    expect(ids('name icontains "A" sort by createdAt desc limit 3')).toEqual(['c', 'b', 'a']);
  });

  it('sorts, skips and limits', () => {
    expect(ids('sort by size desc')).toEqual(['c', 'e', 'b', 'd', 'a']);
    expect(ids('sort by size')).toEqual(['a', 'd', 'b', 'e', 'c']);
    expect(ids('sort by type asc, name desc')).toEqual(['d', 'e', 'b', 'c', 'a']);
    expect(ids('sort by size asc skip 1 limit 2')).toEqual(['d', 'b']);
    expect(ids('limit 2 skip 1 sort by size')).toEqual(['d', 'b']);
    expect(ids('size > 1 skip 3')).toEqual(['e']);
    expect(ids('limit none')).toEqual(ALL);
    expect(ids('limit 0')).toEqual([]);
  });

  it('hands set-valued fields to their compiler', () => {
    expect(set('anyOf(roleAttributes) = "web"')).toEqual(['a', 'b']);
    expect(set('roleAttributes contains "db"')).toEqual(['a', 'e']);
    expect(set('roleAttributes not contains "db"')).toEqual(['b', 'c', 'd']);
    expect(set('anyOf(roleAttributes) in ["db", "x"]')).toEqual(['a', 'e']);
    expect(set('allOf(roleAttributes) in ["web", "db"] and not isEmpty(roleAttributes)')).toEqual([
      'a',
      'b',
      'e',
    ]);
    expect(set('isEmpty(roleAttributes)')).toEqual(['c', 'd']);
    expect(set('isEmpty(roleAttributes) or anyOf(roleAttributes) = "web" and isAdmin')).toEqual([
      'a',
      'c',
      'd',
    ]);
  });
});
