/**
 * JSON bodies, parsed as Fastify does (prototype-poisoning checks included) after one linear scan that
 * refuses nesting deeper than any Postern body needs: a deeply nested document inside the 1 MiB limit
 * would otherwise overflow the stack in validation or stall the event loop. Answered 400, naming the body.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api-error.js';
import { noteJsonBody } from './unstorable-text.js';

/** The deepest real body (a posture check's processes with their hashes, tags) is well under this. */
export const MAX_JSON_DEPTH = 32;

/** Whether the text holds at most `max` opening brackets, counted natively (indexOf) and only that far. */
function bracketsAtMost(text: string, max: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i >= 0; i = text.indexOf(bracket, i + 1))
      if (++count > max) return false;
  }
  return true;
}

/** Where (character index) the text first nests deeper than `max`, or undefined. Strings are skipped. */
export function nestingTooDeepAt(text: string, max = MAX_JSON_DEPTH): number | undefined {
  // A text with no more than `max` brackets cannot nest deeper (those in strings only add to the count): most
  // bodies are told so by a few native searches, not a loop over every character.
  if (bracketsAtMost(text, max)) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return undefined;
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // An empty body is no body, as OpenZiti's controller reads it: its Go clients label every body-less POST
    // `application/json` (starting MFA enrollment, say). A route that needs a body still answers that it is required.
    if (body === '') return done(null, undefined);
    const at = nestingTooDeepAt(body as string);
    if (at === undefined) {
      noteJsonBody(request, body as string);
      return parse(request, body as string, done);
    }
    done(
      new ApiError(
        400,
        'COULD_NOT_PARSE_BODY',
        `The request body nests deeper than ${MAX_JSON_DEPTH} levels`,
        {
          field: 'body',
          reason: `nested deeper than ${MAX_JSON_DEPTH} levels at character ${at}`,
        },
      ),
      undefined,
    );
  });
}
