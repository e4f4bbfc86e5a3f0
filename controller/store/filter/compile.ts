import { filterError } from './errors.js';
import { quote } from './lexer.js';
import type { CompareOp, Expr, FieldRef, Literal, ParsedFilter } from './parser.js';
import type { CompiledFilter, FilterField } from './types.js';

/*
 * Turns a parsed filter into SQL for SQLite (the default) or PostgreSQL. Only three kinds of text reach the SQL:
 * fixed fragments written here, `FilterField.sql` / custom SQL written by the caller, and `?` placeholders; every
 * value from the filter travels in `params`. Both dialects write `?`: the PostgreSQL store numbers them `$1…$n`
 * when it runs the query.
 *
 * Logic is two-valued, as in OpenZiti: a comparison on a missing (NULL) value is false, and `not X` is true
 * whenever X is not true, so `not` and the negated operators (`!=`, `not contains`, `not in`…) wrap their operand
 * in `coalesce(…, 0)` (PostgreSQL: `coalesce(…, false)`) before negating.
 *
 * Case: `contains`, `startswith` and `endswith` compare exactly; `icontains` folds ASCII letters only (SQLite's
 * lower()). The PostgreSQL dialect writes the same semantics: COLLATE "C" makes its lower() fold ASCII only.
 */

const TYPE_NAMES: Record<FilterField['type'], string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  datetime: 'a datetime',
};
const TYPE_VALUES: Record<FilterField['type'], string> = {
  string: 'a "double-quoted string"',
  number: 'a number',
  boolean: 'true or false',
  datetime: 'a datetime(…) value such as datetime(2021-01-01T00:00:00Z)',
};
const STRING_OPS = new Set<CompareOp>(['contains', 'icontains', 'startswith', 'endswith']);
const ORDERING_OPS = new Set<CompareOp>(['<', '<=', '>', '>=', 'between']);

export type FilterDialect = 'sqlite' | 'postgres';

/** The SQL fragments that differ between the two databases; everything else compile() writes is shared. */
interface DialectSql {
  readonly true: string;
  readonly false: string;
  /** true where `sql` is true, false where it is false or NULL */
  isTrue(sql: string): string;
  /** `x != v` as two-valued logic: true when x is NULL */
  notEqual(x: string, v: string): string;
  contains(x: string, v: string): string;
  icontains(x: string, v: string): string;
  startswith(x: string, v: string): string;
  /** `bind` is called once per placeholder written, in order */
  endswith(x: string, bind: () => string): string;
  booleanParam(v: boolean): unknown;
  /** one ORDER BY term; SQLite puts NULLs first when ascending, last when descending */
  sortTerm(x: string, direction: 'ASC' | 'DESC', notNull: boolean): string;
}

const SQLITE: DialectSql = {
  true: '1',
  false: '0',
  isTrue: (sql) => `coalesce(${sql}, 0)`,
  notEqual: (x, v) => `${x} IS NOT ${v}`,
  contains: (x, v) => `instr(${x}, ${v}) > 0`,
  icontains: (x, v) => `instr(lower(${x}), lower(${v})) > 0`,
  startswith: (x, v) => `instr(${x}, ${v}) = 1`,
  // substr never returns more than length(x) characters, so a value longer than x cannot match
  endswith: (x, bind) => `substr(${x}, length(${x}) - length(${bind()}) + 1) = ${bind()}`,
  booleanParam: (v) => (v ? 1 : 0),
  sortTerm: (x, direction) => `${x} ${direction}`,
};

/*
 * PostgreSQL has real booleans (no 1/0), IS DISTINCT FROM for SQLite's `IS NOT`, and strpos/starts_with/right
 * for instr/substr. Its lower() follows the collation: COLLATE "C" folds ASCII only, as SQLite's lower() does,
 * whatever the database's default collation. It sorts NULLs last when ascending, SQLite first, so a nullable
 * sort term says NULLS FIRST / NULLS LAST; a never-NULL one does not, so a plain index can serve the order.
 */
const POSTGRES: DialectSql = {
  true: 'true',
  false: 'false',
  isTrue: (sql) => `coalesce(${sql}, false)`,
  notEqual: (x, v) => `${x} IS DISTINCT FROM ${v}`,
  contains: (x, v) => `strpos(${x}, ${v}) > 0`,
  icontains: (x, v) => `strpos(lower((${x}) COLLATE "C"), lower(${v}::text COLLATE "C")) > 0`,
  startswith: (x, v) => `starts_with(${x}, ${v})`,
  // right() returns all of x when v is longer, which then differs from v
  endswith: (x, bind) => `right(${x}, length(${bind()}::text)) = ${bind()}`,
  booleanParam: (v) => v,
  sortTerm: (x, direction, notNull) =>
    notNull ? `${x} ${direction}` : `${x} ${direction} ${direction === 'ASC' ? 'NULLS FIRST' : 'NULLS LAST'}`,
};

const DIALECTS: Record<FilterDialect, DialectSql> = { sqlite: SQLITE, postgres: POSTGRES };

function opName(op: CompareOp, negated: boolean): string {
  if (op === 'is null') return negated ? 'is not null' : 'is null';
  return negated ? `not ${op}` : op;
}

export function compileParsed(
  filter: string,
  parsed: ParsedFilter,
  fields: Record<string, FilterField>,
  dialect: FilterDialect = 'sqlite',
): CompiledFilter {
  const params: unknown[] = [];
  const d = DIALECTS[dialect];

  const negate = (sql: string): string => {
    if (sql === d.false) return d.true;
    if (sql === d.true) return d.false;
    return `NOT ${d.isTrue(sql)}`;
  };

  const fail = (pos: number, problem: string) => filterError(filter, pos, problem);

  const lookup = (ref: FieldRef): FilterField => {
    if (!Object.prototype.hasOwnProperty.call(fields, ref.name)) {
      const names = Object.keys(fields);
      const allowed = names.length ? `allowed fields: ${names.join(', ')}` : 'no field can be filtered here';
      throw fail(ref.pos, `unknown field ${quote(ref.name)}; ${allowed}`);
    }
    return fields[ref.name]!;
  };

  /** The value to bind for one literal compared with `field`, after checking its type. */
  const bindable = (ref: FieldRef, field: FilterField, lit: Literal): string | number | boolean => {
    if (lit.type === 'null') throw fail(lit.pos, `null can only be compared with = or != (or use 'is null')`);
    if (lit.type !== field.type) {
      throw fail(
        lit.pos,
        `field ${quote(ref.name)} is ${TYPE_NAMES[field.type]}: expected ${TYPE_VALUES[field.type]}, found ${quote(lit.text)}`,
      );
    }
    return lit.value;
  };

  const toParam = (v: string | number | boolean) => (typeof v === 'boolean' ? d.booleanParam(v) : v);

  const compare = (e: Extract<Expr, { kind: 'compare' }>): string => {
    const field = lookup(e.field);
    const name = opName(e.op, e.negated);
    if (e.field.setFunction && !field.custom) {
      throw fail(
        e.field.pos,
        `${e.field.setFunction}() applies only to set-valued fields; ${quote(e.field.name)} is not one`,
      );
    }
    if (STRING_OPS.has(e.op) && field.type !== 'string') {
      throw fail(
        e.opPos,
        `${quote(name)} applies only to string fields; ${quote(e.field.name)} is ${TYPE_NAMES[field.type]}`,
      );
    }
    if (ORDERING_OPS.has(e.op) && field.type === 'boolean') {
      throw fail(
        e.opPos,
        `${quote(name)} does not apply to boolean field ${quote(e.field.name)}; use = or !=`,
      );
    }
    const isNullTest = (e.op === '=' || e.op === '!=') && e.values[0]?.type === 'null';
    const values = isNullTest ? [] : e.values.map((lit) => bindable(e.field, field, lit));

    if (field.custom) {
      const op = isNullTest ? (e.op === '=' ? 'is null' : 'is not null') : name;
      const custom = field.custom(e.field.setFunction ? `${e.field.setFunction} ${op}` : op, values);
      params.push(...custom.params);
      return `(${custom.sql})`;
    }

    const x = field.sql;
    const bind = (v: string | number | boolean) => {
      params.push(toParam(v));
      return '?';
    };
    const v0 = values[0]!;
    let sql: string;
    switch (e.op) {
      case '=':
        return isNullTest ? `${x} IS NULL` : `${x} = ${bind(v0)}`;
      case '!=':
        return isNullTest ? `${x} IS NOT NULL` : d.notEqual(x, bind(v0));
      case '<':
      case '<=':
      case '>':
      case '>=':
        return `${x} ${e.op} ${bind(v0)}`;
      case 'is null':
        return e.negated ? `${x} IS NOT NULL` : `${x} IS NULL`;
      case 'contains':
        sql = d.contains(x, bind(v0));
        break;
      case 'icontains':
        sql = d.icontains(x, bind(v0));
        break;
      case 'startswith':
        sql = d.startswith(x, bind(v0));
        break;
      case 'endswith':
        sql = d.endswith(x, () => bind(v0));
        break;
      case 'in':
        sql = values.length ? `${x} IN (${values.map(bind).join(', ')})` : d.false;
        break;
      case 'between':
        // OpenZiti's between is half-open: lower <= x < upper
        sql = `(${x} >= ${bind(v0)} AND ${x} < ${bind(values[1]!)})`;
        break;
    }
    return e.negated ? negate(sql) : sql;
  };

  const compile = (e: Expr): string => {
    switch (e.kind) {
      case 'and':
      case 'or':
        return `(${e.items.map(compile).join(e.kind === 'and' ? ' AND ' : ' OR ')})`;
      case 'not':
        return negate(compile(e.expr));
      case 'const':
        return e.value ? d.true : d.false;
      case 'compare':
        return compare(e);
      case 'symbol': {
        const field = lookup(e.field);
        if (field.type !== 'boolean') {
          throw fail(
            e.field.pos,
            `field ${quote(e.field.name)} is ${TYPE_NAMES[field.type]} and needs an operator after it (only a boolean field stands alone as a condition)`,
          );
        }
        if (field.custom) {
          const custom = field.custom('=', [true]);
          params.push(...custom.params);
          return `(${custom.sql})`;
        }
        params.push(d.booleanParam(true));
        return `${field.sql} = ?`;
      }
      case 'isEmpty': {
        const field = lookup(e.field);
        if (!field.custom) {
          throw fail(
            e.field.pos,
            `isEmpty() applies only to set-valued fields; ${quote(e.field.name)} is not one`,
          );
        }
        const custom = field.custom('isEmpty', []);
        params.push(...custom.params);
        return `(${custom.sql})`;
      }
    }
  };

  const where = parsed.predicate ? compile(parsed.predicate) : '';
  const orderBy = parsed.sort
    .map(({ field: ref, direction }) => {
      const field = lookup(ref);
      if (field.custom) throw fail(ref.pos, `cannot sort by the set-valued field ${quote(ref.name)}`);
      return d.sortTerm(field.sql, direction, field.notNull === true);
    })
    .join(', ');

  const result: CompiledFilter = { where, params, orderBy };
  if (parsed.limit !== undefined && parsed.limit !== null) result.limit = parsed.limit;
  if (parsed.skip !== undefined) result.offset = parsed.skip;
  return result;
}
