/**
 * Schema failures said in words: each keyword the API's schemas use reads as a person would say it, and the
 * validator's own phrasing ("must NOT have fewer than 1 characters") never reaches a user.
 */
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { schemaIssueInWords } from '../../../controller/http/validation-words.js';

const ajv = new Ajv({ allErrors: false });
addFormats.default(ajv);

/** The words for the first failure of `value` against `schema`, through a real validator. */
function wordsFor(schema: object, value: unknown): string {
  const validate = ajv.compile(schema);
  expect(validate(value)).toBe(false);
  return schemaIssueInWords(validate.errors![0]!);
}

describe('schema failures in words', () => {
  it.each([
    [{ type: 'string', minLength: 1 }, '', 'must not be empty'],
    [{ type: 'string', minLength: 3 }, 'ab', 'must be at least 3 characters'],
    [{ type: 'string', maxLength: 1 }, 'ab', 'must be at most 1 character'],
    [{ type: 'string', maxLength: 255 }, 'x'.repeat(256), 'must be at most 255 characters'],
    [{ type: 'array', minItems: 1 }, [], 'must list at least one entry'],
    [{ type: 'array', maxItems: 2 }, [1, 2, 3], 'must list at most 2 entries'],
    [{ type: 'integer', minimum: 1 }, 0, 'must be 1 or more'],
    [{ type: 'integer', maximum: 90 }, 91, 'must be 90 or less'],
    [{ type: 'integer' }, 1.5, 'must be a whole number'],
    [{ type: 'string' }, 5, 'must be text'],
    [{ type: ['string', 'null'] }, 5, 'must be text or null'],
    [{ type: 'boolean' }, 'yes', 'must be true or false'],
    [
      { type: 'string', format: 'date-time' },
      'tomorrow',
      'must be a date and time such as 2026-03-03T09:00:00Z',
    ],
    [{ enum: ['a', 'b'] }, 'c', 'must be one of a, b'],
    [{ type: 'array', uniqueItems: true }, [1, 1], 'must not list the same entry twice'],
  ])('%j with %j reads "%s"', (schema, value, words) => {
    const said = wordsFor(schema, value);
    expect(said).toBe(words);
    expect(said).not.toMatch(/NOT|must have|should/);
  });

  it("falls back to the validator's message only for a keyword it does not know", () => {
    expect(schemaIssueInWords({ keyword: 'dependentRequired', message: 'needs b', params: {} })).toBe(
      'needs b',
    );
  });
});
