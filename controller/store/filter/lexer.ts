import { filterError } from './errors.js';

/**
 * Tokens of OpenZiti's filter language. Keywords are not told apart here: a `word` is a keyword or a field name
 * depending on where the parser meets it (keywords compare case-insensitively, field names exactly).
 */
export type Token =
  | { kind: 'word'; text: string; pos: number }
  /** `'name'`: a field name that is never a keyword */
  | { kind: 'quotedWord'; text: string; value: string; pos: number }
  | { kind: 'string'; text: string; value: string; pos: number }
  | { kind: 'number'; text: string; value: number; pos: number }
  /** `datetime(2021-01-01T00:00:00Z)`, value normalised to `Date#toISOString()` */
  | { kind: 'datetime'; text: string; value: string; pos: number }
  | { kind: 'op'; text: '=' | '!=' | '<' | '<=' | '>' | '>='; pos: number }
  | { kind: '(' | ')' | '[' | ']' | ','; text: string; pos: number }
  | { kind: 'eof'; text: ''; pos: number };

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isDigit = (c: string) => c >= '0' && c <= '9';
const isWordStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isWordChar = (c: string) => isWordStart(c) || isDigit(c);

/** The escapes OpenZiti's grammar allows inside a string: `\"`, `\\`, `\f`, `\n`, `\r`, `\t`. */
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Short rendering of source text for error messages; a string literal keeps its own double quotes. */
export function quote(text: string): string {
  const t = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return text.startsWith('"') ? t : `'${t}'`;
}

export function tokenize(filter: string): Token[] {
  const tokens: Token[] = [];
  const n = filter.length;
  let i = 0;
  const fail = (at: number, problem: string) => filterError(filter, at + 1, problem);

  while (i < n) {
    const c = filter[i]!;
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    const pos = i + 1;

    if (c === '(' || c === ')' || c === '[' || c === ']' || c === ',') {
      tokens.push({ kind: c, text: c, pos });
      i++;
    } else if (c === '=' || c === '<' || c === '>') {
      const text = filter[i + 1] === '=' && c !== '=' ? (`${c}=` as '<=' | '>=') : c;
      tokens.push({ kind: 'op', text, pos });
      i += text.length;
    } else if (c === '!') {
      if (filter[i + 1] !== '=') throw fail(i, `expected '=' after '!'`);
      tokens.push({ kind: 'op', text: '!=', pos });
      i += 2;
    } else if (c === '"') {
      i++;
      let value = '';
      for (;;) {
        if (i >= n) throw fail(start, "unterminated string: expected a closing '\"'");
        const ch = filter[i]!;
        if (ch === '"') break;
        if (ch === '\\') {
          const esc = filter[i + 1];
          const replacement = esc === undefined ? undefined : ESCAPES[esc];
          if (replacement === undefined) {
            throw fail(
              i,
              `invalid escape ${esc === undefined ? "'\\'" : quote(`\\${esc}`)} in string: expected one of \\" \\\\ \\f \\n \\r \\t`,
            );
          }
          value += replacement;
          i += 2;
          continue;
        }
        if (ch.charCodeAt(0) < 0x20)
          throw fail(i, 'control character in string: write it as an escape (\\n, \\t…)');
        value += ch;
        i++;
      }
      i++;
      tokens.push({ kind: 'string', text: filter.slice(start, i), value, pos });
    } else if (c === "'") {
      i++;
      const wordStart = i;
      if (i >= n || !isWordStart(filter[i]!)) throw fail(i, 'expected a field name after "\'"');
      while (i < n && (isWordChar(filter[i]!) || (filter[i] === '.' && isWordStart(filter[i + 1] ?? ''))))
        i++;
      if (filter[i] !== "'") throw fail(i, 'expected a closing "\'" after the field name');
      const value = filter.slice(wordStart, i);
      i++;
      tokens.push({ kind: 'quotedWord', text: filter.slice(start, i), value, pos });
    } else if (isDigit(c) || (c === '-' && isDigit(filter[i + 1] ?? ''))) {
      if (c === '-') i++;
      while (i < n && isDigit(filter[i]!)) i++;
      if (filter[i] === '.' && isDigit(filter[i + 1] ?? '')) {
        i++;
        while (i < n && isDigit(filter[i]!)) i++;
      }
      if (
        (filter[i] === 'e' || filter[i] === 'E') &&
        (isDigit(filter[i + 1] ?? '') || (/[+-]/.test(filter[i + 1] ?? '') && isDigit(filter[i + 2] ?? '')))
      ) {
        i += 2;
        while (i < n && isDigit(filter[i]!)) i++;
      }
      if (i < n && (isWordChar(filter[i]!) || filter[i] === '.')) {
        throw fail(start, `invalid number ${quote(filter.slice(start, i + 1))}`);
      }
      const text = filter.slice(start, i);
      const value = Number(text);
      if (!Number.isFinite(value)) throw fail(start, `number ${quote(text)} is out of range`);
      tokens.push({ kind: 'number', text, value, pos });
    } else if (isWordStart(c)) {
      while (i < n && (isWordChar(filter[i]!) || (filter[i] === '.' && isWordStart(filter[i + 1] ?? ''))))
        i++;
      const text = filter.slice(start, i);
      let j = i;
      while (j < n && isSpace(filter[j]!)) j++;
      if (text.toLowerCase() === 'datetime' && filter[j] === '(') {
        const close = filter.indexOf(')', j);
        if (close < 0) throw fail(j, "unterminated datetime(: expected a closing ')'");
        const raw = filter.slice(j + 1, close);
        const lead = raw.length - raw.trimStart().length;
        const literal = raw.trim();
        const iso = parseRfc3339(literal);
        if (iso === undefined) {
          throw fail(
            j + 1 + lead,
            `invalid datetime ${quote(literal)}: expected an RFC 3339 date-time such as datetime(2021-01-01T00:00:00Z)`,
          );
        }
        i = close + 1;
        tokens.push({ kind: 'datetime', text: filter.slice(start, i), value: iso, pos });
      } else {
        tokens.push({ kind: 'word', text, pos });
      }
    } else {
      throw fail(i, `unexpected character ${quote(c)}`);
    }
  }
  tokens.push({ kind: 'eof', text: '', pos: n + 1 });
  return tokens;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time as `Date#toISOString()` (UTC, milliseconds), or undefined when it is not one or names a
 * day that does not exist. Years stay within 0000..9999 so the ISO text still sorts as the instant does.
 */
export function parseRfc3339(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate(); // 2000 is a leap year
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && !leap ? 28 : daysInMonth)) return undefined;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC, which reads years 0..99 as 1900..1999
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  const utcYear = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || utcYear < 0 || utcYear > 9999) return undefined;
  return date.toISOString();
}
