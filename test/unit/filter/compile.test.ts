import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { ApiError } from '../../../controller/api-error.js';
import {
  compileFilter,
  MAX_FILTER_DEPTH,
  MAX_FILTER_LENGTH,
  type FilterField,
} from '../../../controller/store/filter/index.js';

/** Strings a filter can spell: control characters only as the escapes \\n \\r \\t \\f. */
const writable = (s: string) => [...s].every((ch) => ch >= ' ' || '\n\r\t\f'.includes(ch));

const CREATED = "json_extract(doc, '$.createdAt')";
const SIZE = "json_extract(doc, '$.size')";
const ADMIN = "json_extract(doc, '$.isAdmin')";

const fields: Record<string, FilterField> = {
  id: { sql: 'id', type: 'string' },
  name: { sql: 'name', type: 'string' },
  createdAt: { sql: CREATED, type: 'datetime' },
  size: { sql: SIZE, type: 'number' },
  isAdmin: { sql: ADMIN, type: 'boolean' },
  p: { sql: 'p', type: 'boolean' },
  q: { sql: 'q', type: 'boolean' },
  r: { sql: 'r', type: 'boolean' },
};

const c = (filter: string, f: Record<string, FilterField> = fields) => compileFilter(filter, f);

/** The ApiError a filter fails with. */
function failure(filter: string, f: Record<string, FilterField> = fields): ApiError {
  try {
    compileFilter(filter, f);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error(`expected ${JSON.stringify(filter)} to be rejected`);
}

describe('compileFilter: comparisons', () => {
  it.each([
    ['name = "a"', 'name = ?', ['a']],
    ['name != "a"', 'name IS NOT ?', ['a']],
    ['name < "m"', 'name < ?', ['m']],
    ['name <= "m"', 'name <= ?', ['m']],
    ['name > "m"', 'name > ?', ['m']],
    ['name >= "m"', 'name >= ?', ['m']],
    ['size < 3', `${SIZE} < ?`, [3]],
    ['size >= -2.5e1', `${SIZE} >= ?`, [-25]],
    ['name contains "x"', 'instr(name, ?) > 0', ['x']],
    ['name icontains "X"', 'instr(lower(name), lower(?)) > 0', ['X']],
    ['name not contains "x"', 'NOT coalesce(instr(name, ?) > 0, 0)', ['x']],
    ['name not icontains "x"', 'NOT coalesce(instr(lower(name), lower(?)) > 0, 0)', ['x']],
    ['name startswith "x"', 'instr(name, ?) = 1', ['x']],
    ['name endswith "x"', 'substr(name, length(name) - length(?) + 1) = ?', ['x', 'x']],
    ['id in ["a", "b"]', 'id IN (?, ?)', ['a', 'b']],
    ['id not in ["a"]', 'NOT coalesce(id IN (?), 0)', ['a']],
    ['id in []', '0', []],
    ['id not in [ ]', '1', []],
    ['size between 1 and 5', `(${SIZE} >= ? AND ${SIZE} < ?)`, [1, 5]],
    ['size not between 1 and 5', `NOT coalesce((${SIZE} >= ? AND ${SIZE} < ?), 0)`, [1, 5]],
    ['name is null', 'name IS NULL', []],
    ['name is not null', 'name IS NOT NULL', []],
    ['name = null', 'name IS NULL', []],
    ['name != null', 'name IS NOT NULL', []],
    ['isAdmin = true', `${ADMIN} = ?`, [1]],
    ['isAdmin = false', `${ADMIN} = ?`, [0]],
    ['isAdmin != true', `${ADMIN} IS NOT ?`, [1]],
    ['isAdmin', `${ADMIN} = ?`, [1]],
    ['createdAt > datetime(2021-01-01T00:00:00Z)', `${CREATED} > ?`, ['2021-01-01T00:00:00.000Z']],
    ['createdAt in [datetime(2021-01-01T00:00:00Z)]', `${CREATED} IN (?)`, ['2021-01-01T00:00:00.000Z']],
  ])('%s', (filter, where, params) => {
    expect(c(filter)).toEqual({ where, params, orderBy: '' });
  });

  it('needs no spaces around symbolic operators, and allows them around lists and parentheses', () => {
    expect(c('name="a"').where).toBe('name = ?');
    expect(c('size>=1').params).toEqual([1]);
    expect(c('(name!="a")').where).toBe('name IS NOT ?');
    expect(c('id in["a","b"]').params).toEqual(['a', 'b']);
  });

  it('reads keywords in any case but field names exactly', () => {
    expect(c('name CONTAINS "a" AnD NoT isAdmin Or size IN [1] SORT BY name DESC SKIP 1 LIMIT 2')).toEqual({
      where: `((instr(name, ?) > 0 AND NOT coalesce(${ADMIN} = ?, 0)) OR ${SIZE} IN (?))`,
      params: ['a', 1, 1],
      orderBy: 'name DESC',
      limit: 2,
      offset: 1,
    });
    expect(c('name IS NOT NULL').where).toBe('name IS NOT NULL');
    expect(c('createdAt < DATETIME(2021-01-01t00:00:00z)').params).toEqual(['2021-01-01T00:00:00.000Z']);
    expect(failure('Name = "a"').message).toContain("unknown field 'Name'");
  });

  it("accepts OpenZiti's single-quoted field names, which are never keywords", () => {
    expect(c(`'name' = "a"`).where).toBe('name = ?');
    const f = { ...fields, limit: { sql: 'lim', type: 'number' as const } };
    expect(c(`'limit' > 3 limit 4`, f)).toEqual({ where: 'lim > ?', params: [3], orderBy: '', limit: 4 });
  });

  it('decodes string escapes', () => {
    expect(c(String.raw`name = "a \"q\" \\ b\n\t\r\f"`).params).toEqual(['a "q" \\ b\n\t\r\f']);
    expect(c('name = "ünï ☃ %_*"').params).toEqual(['ünï ☃ %_*']);
  });

  it('normalises datetimes to toISOString() UTC text', () => {
    const p = (d: string) => c(`createdAt = datetime(${d})`).params[0];
    expect(p('2021-01-01T00:00:00Z')).toBe('2021-01-01T00:00:00.000Z');
    expect(p('2021-01-01T02:30:00+02:30')).toBe('2021-01-01T00:00:00.000Z');
    expect(p('2020-12-31T23:00:00-01:00')).toBe('2021-01-01T00:00:00.000Z');
    expect(p(' 2024-02-29T12:00:00.5Z ')).toBe('2024-02-29T12:00:00.500Z');
    expect(p('2024-02-29T12:00:00.123456789Z')).toBe('2024-02-29T12:00:00.123Z');
    expect(p('0099-01-01T00:00:00Z')).toBe('0099-01-01T00:00:00.000Z');
  });

  it('never puts filter text into the SQL: any string value is one bound parameter', () => {
    const escape = (s: string) =>
      s.replace(
        /[\\"\n\r\t\f]/g,
        (ch) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t', '\f': '\\f' })[ch] ?? `\\${ch}`,
      );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }).filter(writable), (s) => {
        expect(c(`name = "${escape(s)}"`)).toEqual({ where: 'name = ?', params: [s], orderBy: '' });
        expect(c(`name icontains "${escape(s)}" or id in ["${escape(s)}"]`).params).toEqual([s, s]);
      }),
    );
  });
});

describe('compileFilter: boolean structure', () => {
  it('binds not tighter than and, and and tighter than or', () => {
    expect(c('p or q and r').where).toBe('(p = ? OR (q = ? AND r = ?))');
    expect(c('p and q or r').where).toBe('((p = ? AND q = ?) OR r = ?)');
    expect(c('not p and q').where).toBe('(NOT coalesce(p = ?, 0) AND q = ?)');
    expect(c('not p or q and not r').where).toBe(
      '(NOT coalesce(p = ?, 0) OR (q = ? AND NOT coalesce(r = ?, 0)))',
    );
  });

  it('groups with parentheses', () => {
    expect(c('(p or q) and r').where).toBe('((p = ? OR q = ?) AND r = ?)');
    expect(c('not (p and q)').where).toBe('NOT coalesce((p = ? AND q = ?), 0)');
    expect(c('((((p))))').where).toBe('p = ?');
    expect(c('not not p').where).toBe('NOT coalesce(NOT coalesce(p = ?, 0), 0)');
  });

  it('keeps params in placeholder order', () => {
    const r = c('(name = "a" or size between 1 and 2) and id in ["x", "y"] and name endswith "z"');
    expect(r.params).toEqual(['a', 1, 2, 'x', 'y', 'z', 'z']);
    expect(r.where.split('?').length - 1).toBe(r.params.length);
  });

  it('between takes its own "and"', () => {
    expect(c('size between 1 and 2 and p').where).toBe(`((${SIZE} >= ? AND ${SIZE} < ?) AND p = ?)`);
  });

  it('takes true and false as predicates', () => {
    expect(c('true').where).toBe('1');
    expect(c('false').where).toBe('0');
    expect(c('not true').where).toBe('0');
    expect(c('true and p').where).toBe('(1 AND p = ?)');
  });
});

describe('compileFilter: trailing clauses', () => {
  it('takes an empty or blank filter as no filter', () => {
    expect(c('')).toEqual({ where: '', params: [], orderBy: '' });
    expect(c('  \n\t ')).toEqual({ where: '', params: [], orderBy: '' });
  });

  it("takes ZAC's and the ziti CLI's queries", () => {
    expect(c('name contains "" sort by name asc skip 0 limit 25')).toEqual({
      where: 'instr(name, ?) > 0',
      params: [''],
      orderBy: 'name ASC',
      limit: 25,
      offset: 0,
    });
    expect(c('true limit 1')).toEqual({ where: '1', params: [], orderBy: '', limit: 1 });
    expect(c('true limit 10')).toEqual({ where: '1', params: [], orderBy: '', limit: 10 });
    expect(c('name contains "web" sort by createdAt desc skip 25 limit 25')).toMatchObject({
      orderBy: `${CREATED} DESC`,
      limit: 25,
      offset: 25,
    });
    expect(c('id in ["a","b"] limit none')).toEqual({
      where: 'id IN (?, ?)',
      params: ['a', 'b'],
      orderBy: '',
    });
  });

  it('takes the clauses alone and in any order', () => {
    expect(c('sort by name')).toEqual({ where: '', params: [], orderBy: 'name ASC' });
    expect(c('skip 5')).toEqual({ where: '', params: [], orderBy: '', offset: 5 });
    expect(c('limit 3')).toEqual({ where: '', params: [], orderBy: '', limit: 3 });
    expect(c('limit none')).toEqual({ where: '', params: [], orderBy: '' });
    expect(c('limit 2 skip 4 sort by size desc, name')).toEqual({
      where: '',
      params: [],
      orderBy: `${SIZE} DESC, name ASC`,
      limit: 2,
      offset: 4,
    });
    expect(c('p skip 1 sort by id asc , name desc limit 0')).toEqual({
      where: 'p = ?',
      params: [1],
      orderBy: 'id ASC, name DESC',
      limit: 0,
      offset: 1,
    });
  });
});

describe('compileFilter: set-valued fields', () => {
  it('hands comparisons on a custom field to its compiler, with type-checked values', () => {
    const custom = vi.fn((op: string, values: unknown[]) => ({
      sql: `attrs(${JSON.stringify(op)}, ${values.map(() => '?').join(', ')})`,
      params: values,
    }));
    const f: Record<string, FilterField> = {
      ...fields,
      roleAttributes: { sql: "json_extract(doc, '$.roleAttributes')", type: 'string', custom },
    };
    const r = c(
      'anyOf(roleAttributes) = "a" and allOf(roleAttributes) in ["b", "c"] or roleAttributes not contains "d" ' +
        'or isEmpty(roleAttributes) or roleAttributes is null',
      f,
    );
    expect(custom.mock.calls).toEqual([
      ['anyOf =', ['a']],
      ['allOf in', ['b', 'c']],
      ['not contains', ['d']],
      ['isEmpty', []],
      ['is null', []],
    ]);
    expect(r.params).toEqual(['a', 'b', 'c', 'd']);
    expect(r.where).toBe(
      '(((attrs("anyOf =", ?)) AND (attrs("allOf in", ?, ?))) OR (attrs("not contains", ?)) ' +
        'OR (attrs("isEmpty", )) OR (attrs("is null", )))',
    );
    expect(failure('anyOf(roleAttributes) = 1', f).message).toContain("field 'roleAttributes' is a string");
    expect(failure('sort by roleAttributes', f).message).toBe(
      "Invalid filter at position 9: cannot sort by the set-valued field 'roleAttributes'",
    );
  });
});

describe('compileFilter: errors', () => {
  it('is a 400 INVALID_FILTER naming the position, in the message and the cause', () => {
    const e = failure('name contains');
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_FILTER');
    expect(e.message).toBe(
      'Invalid filter at position 14: expected a value (a "string", number, true, false, null or datetime(…)) ' +
        "after 'contains', found the end of the filter",
    );
    expect(e.cause).toEqual({
      field: 'filter',
      reason:
        'at position 14: expected a value (a "string", number, true, false, null or datetime(…)) ' +
        "after 'contains', found the end of the filter",
      value: 'name contains',
    });
  });

  it.each([
    // syntax
    ['name contains', 14, "after 'contains', found the end of the filter"],
    [
      'name contains and p',
      15,
      "expected a value (a \"string\", number, true, false, null or datetime(…)) after 'contains', found 'and'",
    ],
    ['name = abc', 8, "after '=', found 'abc' (strings need double quotes)"],
    [`name = 'abc'`, 8, `after '=', found ''abc'' (strings need double quotes)`],
    ['name', 1, "field 'name' is a string and needs an operator after it"],
    [
      'name like "a"',
      6,
      "expected an operator (=, !=, <, <=, >, >=, contains, icontains, startswith, endswith, in, between or is null) after 'name', found 'like'",
    ],
    [
      'name not like "a"',
      10,
      "expected 'contains', 'icontains', 'startswith', 'endswith', 'in' or 'between' after 'not', found 'like'",
    ],
    ['name is "a"', 9, "expected 'null' after 'is', found \"a\""],
    ['name is not 5', 13, "expected 'null' after 'not', found '5'"],
    ['id in "a"', 7, "expected '[' to start a list after 'in', found \"a\""],
    ['id in ["a" "b"]', 12, 'expected \',\' or \']\' after "a", found "b"'],
    ['id in ["a",]', 12, "after ',', found ']'"],
    ['id in ["a"', 11, "expected ',' or ']' after \"a\", found the end of the filter"],
    ['size between 1 5', 16, "expected 'and' after '1', found '5'"],
    ['p and', 6, "expected a condition after 'and', found the end of the filter"],
    ['p or or q', 6, "expected a condition after 'or', found 'or'"],
    ['not', 4, "expected a condition after 'not', found the end of the filter"],
    ['()', 2, "expected a condition after '(', found ')'"],
    [
      '(p',
      3,
      "expected ')' or 'and'/'or' to continue the group opened at position 1, found the end of the filter",
    ],
    ['p)', 2, "expected 'and', 'or', 'sort by', 'skip', 'limit' or the end of the filter, found ')'"],
    [
      'name = "a" name = "b"',
      12,
      "expected 'and', 'or', 'sort by', 'skip', 'limit' or the end of the filter, found 'name'",
    ],
    ['= "a"', 1, "expected a condition (a field name, true, false, not or a parenthesis), found '='"],
    ['p and limit 3', 7, "expected a condition after 'and', found 'limit'"],
    ['sort name', 6, "expected 'by' after 'sort', found 'name'"],
    ['sort by', 8, "expected a field name to sort by after 'by', found the end of the filter"],
    ['sort by name,', 14, "expected a field name to sort by after ',', found the end of the filter"],
    ['sort by name up', 14, "expected 'sort by', 'skip', 'limit' or the end of the filter, found 'up'"],
    ['limit', 6, "expected a whole number of 0 or more or 'none' after 'limit', found the end of the filter"],
    ['limit -1', 7, "expected a whole number of 0 or more or 'none' after 'limit', found '-1'"],
    ['skip 1.5', 6, "expected a whole number of 0 or more after 'skip', found '1.5'"],
    ['skip none', 6, "expected a whole number of 0 or more after 'skip', found 'none'"],
    ['limit 1 limit 2', 9, "'limit' is given more than once"],
    ['p sort by id sort by name', 14, "'sort' is given more than once"],
    // lexical
    ['name = "abc', 8, "unterminated string: expected a closing '\"'"],
    [
      String.raw`name = "a\qb"`,
      10,
      String.raw`invalid escape '\q' in string: expected one of \" \\ \f \n \r \t`,
    ],
    ['name = "a\tb"', 10, 'control character in string'],
    ['name ! "a"', 6, "expected '=' after '!'"],
    ['name = "a" & p', 12, "unexpected character '&'"],
    ['size = 12abc', 8, "invalid number '12a'"],
    ['size = 1.', 8, "invalid number '1.'"],
    ['size = 1e999', 8, "number '1e999' is out of range"],
    [`'name = "a"`, 6, `expected a closing "'" after the field name`],
    ['createdAt > datetime(2021-01-01T00:00:00Z', 21, "unterminated datetime(: expected a closing ')'"],
    [
      'createdAt > datetime(2021-02-29T00:00:00Z)',
      22,
      "invalid datetime '2021-02-29T00:00:00Z': expected an RFC 3339 date-time such as datetime(2021-01-01T00:00:00Z)",
    ],
    ['createdAt > datetime( 2021-13-01T00:00:00Z)', 23, "invalid datetime '2021-13-01T00:00:00Z'"],
    ['createdAt > datetime(2021-01-01)', 22, "invalid datetime '2021-01-01'"],
    ['createdAt > datetime(2021-01-01T24:00:00Z)', 22, 'invalid datetime'],
    ['createdAt > datetime(2021-01-01T00:00:00)', 22, 'invalid datetime'],
    ['createdAt > datetime(9999-12-31T23:00:00-02:00)', 22, 'invalid datetime'],
    ['createdAt > datetime(nope)', 22, "invalid datetime 'nope'"],
    // fields and types
    ['nmae = "a"', 1, "unknown field 'nmae'; allowed fields: id, name, createdAt, size, isAdmin, p, q, r"],
    ['p and constructor = "a"', 7, "unknown field 'constructor'"],
    ['__proto__ = "a"', 1, "unknown field '__proto__'"],
    ['sort by nmae', 9, "unknown field 'nmae'"],
    [
      'createdAt > "abc"',
      13,
      'field \'createdAt\' is a datetime: expected a datetime(…) value such as datetime(2021-01-01T00:00:00Z), found "abc"',
    ],
    ['name > 5', 8, "field 'name' is a string: expected a \"double-quoted string\", found '5'"],
    ['size = "5"', 8, 'field \'size\' is a number: expected a number, found "5"'],
    ['isAdmin = 1', 11, "field 'isAdmin' is a boolean: expected true or false, found '1'"],
    ['id in ["a", 2]', 13, "field 'id' is a string: expected a \"double-quoted string\", found '2'"],
    ['size between 1 and datetime(2021-01-01T00:00:00Z)', 20, "field 'size' is a number"],
    ['size contains "1"', 6, "'contains' applies only to string fields; 'size' is a number"],
    [
      'createdAt not startswith "2"',
      11,
      "'not startswith' applies only to string fields; 'createdAt' is a datetime",
    ],
    ['isAdmin > false', 9, "'>' does not apply to boolean field 'isAdmin'; use = or !="],
    ['name contains null', 15, "null can only be compared with = or != (or use 'is null')"],
    ['name < null', 8, 'null can only be compared with = or !='],
    ['id in [null]', 8, 'null can only be compared with = or !='],
    ['anyOf(name) = "a"', 7, "anyOf() applies only to set-valued fields; 'name' is not one"],
    ['isEmpty(name)', 9, "isEmpty() applies only to set-valued fields; 'name' is not one"],
    ['anyOf(name)', 12, 'expected an operator'],
    ['size', 1, "field 'size' is a number and needs an operator after it"],
  ])('%s → position %i', (filter, position, text) => {
    const e = failure(filter);
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_FILTER');
    expect(e.message).toMatch(new RegExp(`^Invalid filter at position ${position}: `));
    expect(e.message).toContain(text);
  });

  it('says so when no field can be filtered', () => {
    expect(failure('name = "a"', {}).message).toBe(
      "Invalid filter at position 1: unknown field 'name'; no field can be filtered here",
    );
  });

  it('bounds the length', () => {
    expect(c(`name = "${'a'.repeat(MAX_FILTER_LENGTH - 9)}"`).params[0]).toHaveLength(MAX_FILTER_LENGTH - 9);
    const e = failure('a'.repeat(MAX_FILTER_LENGTH + 1));
    expect(e.message).toBe(
      `Invalid filter at position ${MAX_FILTER_LENGTH + 1}: the filter is longer than ${MAX_FILTER_LENGTH} characters`,
    );
  });

  it('bounds the nesting depth of parentheses and not', () => {
    const nest = (n: number) => `${'('.repeat(n)}p${')'.repeat(n)}`;
    expect(c(nest(MAX_FILTER_DEPTH)).where).toBe('p = ?');
    expect(failure(nest(MAX_FILTER_DEPTH + 1)).message).toBe(
      `Invalid filter at position ${MAX_FILTER_DEPTH + 1}: the filter nests parentheses and 'not' more than ${MAX_FILTER_DEPTH} deep`,
    );
    expect(c(`${'not '.repeat(MAX_FILTER_DEPTH)}p`).where).toMatch(/^NOT coalesce\(/);
    expect(failure(`${'not '.repeat(MAX_FILTER_DEPTH + 1)}p`).message).toContain(
      `at position ${4 * MAX_FILTER_DEPTH + 1}: the filter nests`,
    );
    expect(failure(`${'(not '.repeat(200)}p`).message).toContain('nests');
  });

  it('handles long flat chains without recursion', () => {
    const chain = Array.from({ length: 200 }, () => 'p').join(' or ');
    expect(c(chain).params).toHaveLength(200);
  });

  it('rejects any input with an ApiError, never another exception', () => {
    const alphabet = fc.constantFrom(
      ...'()[],=!<>" \\\'-.01eE5abnotdrsinlkpzTZ:'.split(''),
      'and ',
      'or ',
      'not ',
      'in ',
      'name',
      'size',
      'createdAt',
      'datetime(',
      'contains ',
      'between ',
      'sort by ',
      'limit ',
      'skip ',
      'is null',
      'true',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (parts) => {
        const filter = parts.join('');
        try {
          const r = compileFilter(filter, fields);
          expect(r.where.split('?').length - 1).toBe(r.params.length);
        } catch (e) {
          expect(e).toBeInstanceOf(ApiError);
          expect((e as ApiError).code).toBe('INVALID_FILTER');
        }
      }),
      { numRuns: 2000 },
    );
  });
});
