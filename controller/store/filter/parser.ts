import { MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, filterError } from './errors.js';
import { quote, tokenize, type Token } from './lexer.js';

/*
 * Recursive-descent parser for OpenZiti's filter language (the `filter=` query parameter):
 *
 *   query      := [ orExpr ] { 'sort' 'by' sortField { ',' sortField } | 'skip' NUMBER | 'limit' (NUMBER | 'none') }
 *   orExpr     := andExpr { 'or' andExpr }
 *   andExpr    := unary { 'and' unary }
 *   unary      := 'not' unary | primary
 *   primary    := '(' orExpr ')' | 'true' | 'false' | 'isEmpty' '(' field ')' | lhs comparison | field
 *   lhs        := field | ('anyOf' | 'allOf') '(' field ')'
 *   comparison := ('=' | '!=' | '<' | '<=' | '>' | '>=') value
 *               | ['not'] ('contains' | 'icontains' | 'startswith' | 'endswith') value
 *               | ['not'] 'in' '[' [ value { ',' value } ] ']'
 *               | ['not'] 'between' value 'and' value
 *               | 'is' ['not'] 'null'
 *   value      := STRING | NUMBER | 'true' | 'false' | 'null' | DATETIME
 *   sortField  := field [ 'asc' | 'desc' ]
 *   field      := WORD (not a keyword) | "'" WORD "'"
 *
 * Keywords are case-insensitive; field names are not. The trailing clauses may come in any order, each once.
 */

export type Literal =
  | { type: 'string'; value: string; pos: number; text: string }
  | { type: 'number'; value: number; pos: number; text: string }
  | { type: 'boolean'; value: boolean; pos: number; text: string }
  | { type: 'datetime'; value: string; pos: number; text: string }
  | { type: 'null'; value: null; pos: number; text: string };

export interface FieldRef {
  name: string;
  pos: number;
  /** `anyOf(field)` / `allOf(field)` */
  setFunction?: 'anyOf' | 'allOf';
}

export type CompareOp =
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'contains'
  | 'icontains'
  | 'startswith'
  | 'endswith'
  | 'in'
  | 'between'
  | 'is null';

export type Expr =
  | { kind: 'and' | 'or'; items: Expr[] }
  | { kind: 'not'; expr: Expr }
  | { kind: 'const'; value: boolean }
  /** `negated` turns `contains` into `not contains`, `in` into `not in`, `is null` into `is not null`… */
  | { kind: 'compare'; field: FieldRef; op: CompareOp; negated: boolean; values: Literal[]; opPos: number }
  | { kind: 'isEmpty'; field: FieldRef }
  /** a bare field name as a predicate: a boolean field that is true */
  | { kind: 'symbol'; field: FieldRef };

export interface SortKey {
  field: FieldRef;
  direction: 'ASC' | 'DESC';
}

export interface ParsedFilter {
  predicate?: Expr;
  sort: SortKey[];
  /** null for `limit none` */
  limit?: number | null;
  skip?: number;
}

/** Words that are never field names unless quoted (`'limit'`). */
const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'true',
  'false',
  'null',
  'in',
  'is',
  'contains',
  'icontains',
  'startswith',
  'endswith',
  'between',
  'sort',
  'by',
  'skip',
  'limit',
  'none',
  'asc',
  'desc',
  'anyof',
  'allof',
  'isempty',
]);
const CLAUSE_WORDS = new Set(['sort', 'skip', 'limit']);
const WORD_OPS = new Set(['contains', 'icontains', 'startswith', 'endswith', 'in', 'between']);
const OPERATOR_LIST =
  '=, !=, <, <=, >, >=, contains, icontains, startswith, endswith, in, between or is null';

function describe(tok: Token): string {
  return tok.kind === 'eof' ? 'the end of the filter' : quote(tok.text);
}

export function parseFilter(filter: string): ParsedFilter {
  if (filter.length > MAX_FILTER_LENGTH) {
    throw filterError(
      filter,
      MAX_FILTER_LENGTH + 1,
      `the filter is longer than ${MAX_FILTER_LENGTH} characters`,
    );
  }
  return new Parser(filter, tokenize(filter)).parseQuery();
}

class Parser {
  private i = 0;
  private depth = 0;

  constructor(
    private readonly filter: string,
    private readonly tokens: Token[],
  ) {}

  private peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const tok = this.peek();
    if (tok.kind !== 'eof') this.i++;
    return tok;
  }

  private isWord(tok: Token, ...words: string[]): boolean {
    return tok.kind === 'word' && words.includes(tok.text.toLowerCase());
  }

  private fail(tok: Token, problem: string): Error {
    return filterError(this.filter, tok.pos, problem);
  }

  private expected(what: string, after: Token): Error {
    const found = this.peek();
    return this.fail(found, `expected ${what} after ${quote(after.text)}, found ${describe(found)}`);
  }

  parseQuery(): ParsedFilter {
    const result: ParsedFilter = { sort: [] };
    const first = this.peek();
    if (first.kind !== 'eof' && !(first.kind === 'word' && CLAUSE_WORDS.has(first.text.toLowerCase()))) {
      result.predicate = this.parseOr();
    }
    const seen = new Set<string>();
    for (let tok = this.peek(); tok.kind !== 'eof'; tok = this.peek()) {
      const word = tok.kind === 'word' ? tok.text.toLowerCase() : '';
      if (!CLAUSE_WORDS.has(word)) {
        const wanted = result.predicate && seen.size === 0 ? "'and', 'or', " : '';
        throw this.fail(
          tok,
          `expected ${wanted}'sort by', 'skip', 'limit' or the end of the filter, found ${describe(tok)}`,
        );
      }
      if (seen.has(word)) throw this.fail(tok, `${quote(tok.text)} is given more than once`);
      seen.add(word);
      this.next();
      if (word === 'sort') {
        if (!this.isWord(this.peek(), 'by')) throw this.expected("'by'", tok);
        const by = this.next();
        result.sort = this.parseSortFields(by);
      } else if (word === 'skip') {
        result.skip = this.parseCount(tok, false) as number;
      } else {
        result.limit = this.parseCount(tok, true);
      }
    }
    return result;
  }

  private parseSortFields(by: Token): SortKey[] {
    const keys: SortKey[] = [];
    let after = by;
    for (;;) {
      const field = this.parseFieldName(after, 'a field name to sort by');
      let direction: 'ASC' | 'DESC' = 'ASC';
      if (this.isWord(this.peek(), 'asc', 'desc'))
        direction = this.next().text.toUpperCase() as 'ASC' | 'DESC';
      keys.push({ field, direction });
      if (this.peek().kind !== ',') return keys;
      after = this.next();
    }
  }

  /** `skip n` / `limit n` / `limit none` (null). */
  private parseCount(keyword: Token, allowNone: boolean): number | null {
    const tok = this.peek();
    if (allowNone && this.isWord(tok, 'none')) {
      this.next();
      return null;
    }
    const what = `a whole number of 0 or more${allowNone ? " or 'none'" : ''}`;
    if (tok.kind !== 'number') throw this.expected(what, keyword);
    if (!Number.isSafeInteger(tok.value) || tok.value < 0) {
      throw this.fail(tok, `expected ${what} after ${quote(keyword.text)}, found ${describe(tok)}`);
    }
    this.next();
    return tok.value;
  }

  private parseOr(): Expr {
    const items = [this.parseAnd()];
    while (this.isWord(this.peek(), 'or')) {
      this.next();
      items.push(this.parseAnd());
    }
    return items.length === 1 ? items[0]! : { kind: 'or', items };
  }

  private parseAnd(): Expr {
    const items = [this.parseUnary()];
    while (this.isWord(this.peek(), 'and')) {
      this.next();
      items.push(this.parseUnary());
    }
    return items.length === 1 ? items[0]! : { kind: 'and', items };
  }

  private enter(tok: Token): void {
    if (++this.depth > MAX_FILTER_DEPTH) {
      throw this.fail(tok, `the filter nests parentheses and 'not' more than ${MAX_FILTER_DEPTH} deep`);
    }
  }

  private parseUnary(): Expr {
    const tok = this.peek();
    if (this.isWord(tok, 'not')) {
      this.enter(tok);
      this.next();
      if (this.peek().kind === 'eof') throw this.expected('a condition', tok);
      const expr = this.parseUnary();
      this.depth--;
      return { kind: 'not', expr };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Expr {
    const tok = this.peek();
    if (tok.kind === '(') {
      this.enter(tok);
      this.next();
      if (this.peek().kind === ')' || this.peek().kind === 'eof') throw this.expected('a condition', tok);
      const expr = this.parseOr();
      const close = this.peek();
      if (close.kind !== ')') {
        throw this.fail(
          close,
          `expected ')' or 'and'/'or' to continue the group opened at position ${tok.pos}, found ${describe(close)}`,
        );
      }
      this.next();
      this.depth--;
      return expr;
    }
    if (this.isWord(tok, 'true', 'false')) {
      this.next();
      return { kind: 'const', value: tok.text.toLowerCase() === 'true' };
    }
    if (this.isWord(tok, 'isempty') && this.peek(1).kind === '(') {
      this.next();
      const field = this.parseParenthesisedField(tok);
      return { kind: 'isEmpty', field };
    }
    let field: FieldRef;
    if (this.isWord(tok, 'anyof', 'allof') && this.peek(1).kind === '(') {
      this.next();
      field = this.parseParenthesisedField(tok);
      field.setFunction = tok.text.toLowerCase() === 'anyof' ? 'anyOf' : 'allOf';
    } else {
      const prev = this.tokens[this.i - 1];
      const startsField =
        tok.kind === 'quotedWord' || (tok.kind === 'word' && !KEYWORDS.has(tok.text.toLowerCase()));
      if (!startsField && prev) throw this.expected('a condition', prev);
      field = this.parseFieldName(undefined, 'a condition (a field name, true, false, not or a parenthesis)');
    }
    return this.parseComparison(field, tok);
  }

  /** `(field)` after anyOf / allOf / isEmpty. */
  private parseParenthesisedField(fn: Token): FieldRef {
    const open = this.next(); // '('
    const field = this.parseFieldName(open, `a field name inside ${fn.text}()`);
    if (this.peek().kind !== ')') throw this.expected("')'", this.tokens[this.i - 1]!);
    this.next();
    return field;
  }

  private parseFieldName(after: Token | undefined, what: string): FieldRef {
    const tok = this.peek();
    if (tok.kind === 'quotedWord') {
      this.next();
      return { name: tok.value, pos: tok.pos };
    }
    if (tok.kind === 'word' && !KEYWORDS.has(tok.text.toLowerCase())) {
      this.next();
      return { name: tok.text, pos: tok.pos };
    }
    if (after) throw this.expected(what, after);
    throw this.fail(tok, `expected ${what}, found ${describe(tok)}`);
  }

  private parseComparison(field: FieldRef, lhsTok: Token): Expr {
    const lhsEnd = this.tokens[this.i - 1]!;
    let tok = this.peek();
    if (tok.kind === 'op') {
      this.next();
      return {
        kind: 'compare',
        field,
        op: tok.text,
        negated: false,
        values: [this.parseValue(tok)],
        opPos: tok.pos,
      };
    }
    if (this.isWord(tok, 'is')) {
      this.next();
      let negated = false;
      let last: Token = tok;
      if (this.isWord(this.peek(), 'not')) {
        last = this.next();
        negated = true;
      }
      if (!this.isWord(this.peek(), 'null')) throw this.expected("'null'", last);
      this.next();
      return { kind: 'compare', field, op: 'is null', negated, values: [], opPos: tok.pos };
    }
    const opPos = tok.pos;
    let negated = false;
    if (this.isWord(tok, 'not')) {
      const following = this.peek(1);
      if (following.kind !== 'word' || !WORD_OPS.has(following.text.toLowerCase())) {
        this.next();
        throw this.expected("'contains', 'icontains', 'startswith', 'endswith', 'in' or 'between'", tok);
      }
      this.next();
      negated = true;
      tok = this.peek();
    }
    if (tok.kind === 'word' && WORD_OPS.has(tok.text.toLowerCase())) {
      this.next();
      const op = tok.text.toLowerCase() as CompareOp;
      if (op === 'in') return { kind: 'compare', field, op, negated, values: this.parseList(tok), opPos };
      if (op === 'between') {
        const lower = this.parseValue(tok);
        if (!this.isWord(this.peek(), 'and')) throw this.expected("'and'", this.tokens[this.i - 1]!);
        const and = this.next();
        return { kind: 'compare', field, op, negated, values: [lower, this.parseValue(and)], opPos };
      }
      return { kind: 'compare', field, op, negated, values: [this.parseValue(tok)], opPos };
    }
    // A bare field name is a boolean predicate, as in OpenZiti (`isAdmin and name = "x"`).
    const atEnd =
      tok.kind === 'eof' ||
      tok.kind === ')' ||
      (tok.kind === 'word' && ['and', 'or', 'sort', 'skip', 'limit'].includes(tok.text.toLowerCase()));
    if (atEnd && !field.setFunction) return { kind: 'symbol', field };
    const lhs = this.filter.slice(lhsTok.pos - 1, lhsEnd.pos - 1 + lhsEnd.text.length);
    throw this.fail(
      tok,
      `expected an operator (${OPERATOR_LIST}) after ${quote(lhs)}, found ${describe(tok)}`,
    );
  }

  private parseValue(after: Token): Literal {
    const tok = this.peek();
    switch (tok.kind) {
      case 'string':
      case 'number':
      case 'datetime':
        this.next();
        return { type: tok.kind, value: tok.value, pos: tok.pos, text: tok.text } as Literal;
      case 'word': {
        const w = tok.text.toLowerCase();
        if (w === 'true' || w === 'false') {
          this.next();
          return { type: 'boolean', value: w === 'true', pos: tok.pos, text: tok.text };
        }
        if (w === 'null') {
          this.next();
          return { type: 'null', value: null, pos: tok.pos, text: tok.text };
        }
        break;
      }
    }
    const hint = tok.kind === 'word' || tok.kind === 'quotedWord' ? ' (strings need double quotes)' : '';
    throw this.fail(
      tok,
      `expected a value (a "string", number, true, false, null or datetime(…)) after ${quote(after.text)}, found ${describe(tok)}${hint}`,
    );
  }

  private parseList(inTok: Token): Literal[] {
    const open = this.peek();
    if (open.kind !== '[') throw this.expected("'[' to start a list", inTok);
    this.next();
    const values: Literal[] = [];
    if (this.peek().kind === ']') {
      this.next();
      return values;
    }
    let after: Token = open;
    for (;;) {
      values.push(this.parseValue(after));
      const sep = this.peek();
      if (sep.kind === ']') {
        this.next();
        return values;
      }
      if (sep.kind !== ',') throw this.expected("',' or ']'", this.tokens[this.i - 1]!);
      after = this.next();
    }
  }
}
