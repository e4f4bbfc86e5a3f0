/**
 * A list whose rows belong to one owner (a posture check's devices) takes the request's OpenZiti filter and
 * adds its own condition: `<condition> and (<the request's predicate>) <its sort/skip/limit clauses>`, so the
 * request can neither widen the list past the owner (an `or`) nor lose its clauses in the parentheses.
 */
import { tokenize } from './lexer.js';

const CLAUSE_WORDS = new Set(['sort', 'skip', 'limit']);

export function narrowFilter(filter: string | undefined, condition: string): string {
  if (filter === undefined || filter.trim() === '') return condition;
  let tokens;
  try {
    tokens = tokenize(filter);
  } catch {
    // Malformed: compiled alone, it is refused with its own message (a 400 naming the filter).
    return filter;
  }
  let depth = 0;
  let split = filter.length;
  for (const tok of tokens) {
    if (tok.kind === '(') depth++;
    else if (tok.kind === ')') depth--;
    else if (depth === 0 && tok.kind === 'word' && CLAUSE_WORDS.has(tok.text.toLowerCase())) {
      split = tok.pos - 1;
      break;
    }
  }
  const predicate = filter.slice(0, split).trim();
  const clauses = filter.slice(split).trim();
  return [condition, predicate ? `and (${predicate})` : '', clauses].filter(Boolean).join(' ');
}
