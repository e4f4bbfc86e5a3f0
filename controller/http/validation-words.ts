/**
 * A schema failure said in words a person reads ("must not be empty", "must be at most 255 characters"),
 * instead of the validator's own ("must NOT have fewer than 1 characters"): the console shows these under the
 * field, the admin CLI prints them, and a script's author reads them in the response.
 */

/** What the validator reports of one failed keyword (Ajv's error object, the parts read here). */
export interface SchemaIssue {
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  null: 'null',
};

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'a date and time such as 2026-03-03T09:00:00Z',
  date: 'a date such as 2026-03-03',
  uri: 'an absolute URL',
  url: 'an absolute URL',
  email: 'an email address',
  uuid: 'a UUID',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  hostname: 'a host name',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function typeInWords(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => TYPE_WORDS[String(t)] ?? String(t)).join(' or ');
}

/** The words for one issue; the validator's own message only for a keyword not listed here. */
export function schemaIssueInWords(issue: SchemaIssue): string {
  const { params } = issue;
  const limit = Number(params.limit);
  switch (issue.keyword) {
    case 'minLength':
      return limit <= 1
        ? 'must not be empty'
        : `must be at least ${plural(limit, 'character', 'characters')}`;
    case 'maxLength':
      return `must be at most ${plural(limit, 'character', 'characters')}`;
    case 'minItems':
      return limit <= 1 ? 'must list at least one entry' : `must list at least ${limit} entries`;
    case 'maxItems':
      return `must list at most ${plural(limit, 'entry', 'entries')}`;
    case 'minProperties':
      return limit <= 1 ? 'must not be empty' : `must have at least ${limit} fields`;
    case 'maxProperties':
      return `must have at most ${plural(limit, 'field', 'fields')}`;
    case 'minimum':
      return `must be ${limit} or more`;
    case 'maximum':
      return `must be ${limit} or less`;
    case 'exclusiveMinimum':
      return `must be more than ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'multipleOf':
      return `must be a multiple of ${String(params.multipleOf)}`;
    case 'type':
      return `must be ${typeInWords(params.type)}`;
    case 'format':
      return `must be ${FORMAT_WORDS[String(params.format)] ?? `in the ${String(params.format)} format`}`;
    case 'pattern':
      return 'contains characters or a shape this field does not accept';
    case 'enum':
      return Array.isArray(params.allowedValues)
        ? `must be one of ${params.allowedValues.map(String).join(', ')}`
        : 'is not one of the allowed values';
    case 'const':
      return `must be ${String(params.allowedValue)}`;
    case 'uniqueItems':
      return 'must not list the same entry twice';
    case 'anyOf':
    case 'oneOf':
      return 'is not any of the accepted forms';
    default:
      return issue.message ?? 'is invalid';
  }
}
