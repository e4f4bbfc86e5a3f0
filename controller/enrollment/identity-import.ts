/**
 * `POST /identities/import` (`text/csv`): many identities with their enrollment tokens in one call,
 * answered row by row. The header names the columns (any order; `name` and `type` required):
 *
 *   name,type,roleAttributes,isAdmin,enrollment
 *   laptop-alice,User,sales;emea,false,ott
 *   bob,User,sales,,updb:bob
 *
 * `roleAttributes` are separated by `;` (the comma separates columns); `isAdmin` is true/false (empty: false);
 * `enrollment` is `ott`, `updb:<username>` or empty (none). Each row is created through `POST /identities`
 * itself, so a row is checked, stored and refused exactly as one create would be, in its own transaction:
 * good rows are created, a bad row stores nothing and is answered with the field at fault. At most 1,000
 * rows; the body is bounded like every other (1 MiB, 413 beyond).
 */
import { typed, type Api } from '../http/typed-app.js';
import { IdentityImportAnswer, identityImportBody } from '../../src/api/resources/identities.js';
import type { FastifyRequest } from 'fastify';
import type { ControllerContext } from '../platform/context.js';
import {
  IDENTITY_IMPORT_COLUMNS,
  IDENTITY_IMPORT_CONTENT_TYPE,
  type IdentityImportRow,
} from '../../src/api/enrollment.js';
import { IDENTITY_TYPES } from '../model.js';
import { ApiError, validationError } from '../api-error.js';
import { CsvError, parseCsv } from '../http/csv.js';
import { iso } from '../http/envelope.js';
import { errorResponses } from '../../src/api/resources/envelopes.js';
import { BODY_LIMIT } from '../http/connection-limits.js';
import { SESSION_HEADER, authOf } from '../auth/guard.js';
import type { EnrollmentAuthority } from './enrollment-authority.js';

export const MAX_IMPORT_ROWS = 1000;

type Column = (typeof IDENTITY_IMPORT_COLUMNS)[number];
const REQUIRED: Column[] = ['name', 'type'];

/** A row's value that is wrong before the API sees it (a column the API does not have as such). */
class CellError extends Error {
  constructor(
    readonly field: Column | 'row',
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function registerIdentityImport(
  app: Api,
  ctx: ControllerContext,
  authority: EnrollmentAuthority,
): void {
  void app.register(async (plain) => {
    // A child scope starts untyped; the route's body is the CSV text its schema says.
    const scope = typed(plain);
    scope.addContentTypeParser(IDENTITY_IMPORT_CONTENT_TYPE, { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      '/identities/import',
      {
        schema: {
          tags: ['Identity'],
          description:
            'Creates identities with enrollment tokens from CSV (`text/csv`), answering each row: its id and ' +
            'enrollment JWT, or the error and the field at fault (nothing of a refused row is stored; the other ' +
            'rows are created). Header: `name,type,roleAttributes,isAdmin,enrollment` (any order; name and type ' +
            'required). roleAttributes are separated by `;`; isAdmin is true or false; enrollment is `ott`, ' +
            '`updb:<username>` or empty. At most 1,000 rows.',
          consumes: [IDENTITY_IMPORT_CONTENT_TYPE],
          // The body limit (1 MiB, 413 beyond) answers first; each row's fields are an identity create's.
          body: identityImportBody(BODY_LIMIT),
          response: { 200: IdentityImportAnswer, ...errorResponses(400, 401, 413, 415) },
        },
        // JSON would parse (the API's own parser) and then fail as "not a string": say what to send instead.
        preValidation: async (request) => {
          if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith(IDENTITY_IMPORT_CONTENT_TYPE))
            throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the identities as CSV (text/csv)', {
              field: 'content-type',
              reason: `must be ${IDENTITY_IMPORT_CONTENT_TYPE}`,
            });
        },
      },
      async (request) => {
        const { header, rows } = readCsv(request.body);
        const answers: IdentityImportRow[] = [];
        for (const row of rows) answers.push(await importRow(app, request, header, row.line, row.fields));
        const failed = answers.filter((a) => a.error).length;
        return { data: answers, meta: { created: answers.length - failed, failed } };
      },
    );
  });

  async function importRow(
    api: Api,
    request: FastifyRequest,
    header: Column[],
    line: number,
    cells: string[],
  ): Promise<IdentityImportRow> {
    const value = (column: Column) => (cells[header.indexOf(column)] ?? '').trim();
    const name = value('name');
    let body: Record<string, unknown>;
    try {
      if (cells.length !== header.length)
        throw new CellError('row', `the row has ${cells.length} columns; the header has ${header.length}`);
      body = identityBody(header, value);
    } catch (err) {
      if (!(err instanceof CellError)) throw err;
      return {
        row: line,
        name,
        error: { code: 'COULD_NOT_VALIDATE', field: err.field, message: err.reason },
      };
    }
    const res = await api.inject({
      method: 'POST',
      url: `${api.prefix}/identities`,
      headers: { [SESSION_HEADER]: authOf(request).token, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    const answer = res.json() as {
      data?: { id: string };
      error?: { code: string; message: string; cause?: { field?: string; reason?: string } };
    };
    if (res.statusCode !== 201 || !answer.data) {
      const cause = answer.error?.cause;
      // The API names `enrollment.updb`; the file has one `enrollment` column.
      const field = (cause?.field ?? 'body').replace(/^enrollment\..*/, 'enrollment');
      return {
        row: line,
        name,
        error: {
          code: answer.error?.code ?? 'UNHANDLED',
          field,
          message: cause?.reason
            ? `${field}: ${cause.reason}`
            : (answer.error?.message ?? `status ${res.statusCode}`),
        },
      };
    }
    const id = answer.data.id;
    const enrollment = (await ctx.store.enrollments.listOutstanding({ identityId: id, limit: 1, offset: 0 }))
      .items[0];
    return {
      row: line,
      name,
      id,
      ...(enrollment && {
        enrollment: {
          method: enrollment.method,
          jwt: authority.jwtOf(enrollment),
          expiresAt: iso(enrollment.expiresAt)!,
        },
      }),
    };
  }
}

/** The header (checked) and the rows; a 400 naming `body` when the file itself is unusable. */
function readCsv(text: string): { header: Column[]; rows: { line: number; fields: string[] }[] } {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    throw validationError([{ field: 'body', reason: `not valid CSV at line ${err.line}: ${err.reason}` }]);
  }
  const [first, ...rows] = records;
  if (!first)
    throw validationError([
      {
        field: 'body',
        reason: `is empty: the header line comes first (${IDENTITY_IMPORT_COLUMNS.join(',')})`,
      },
    ]);
  const header = first.fields.map((f) => f.trim());
  const known = IDENTITY_IMPORT_COLUMNS as readonly string[];
  for (const column of header)
    if (!known.includes(column))
      throw validationError([
        {
          field: 'header',
          reason: `unknown column '${column}'; the columns are ${known.join(', ')}`,
          value: column,
        },
      ]);
  for (const column of REQUIRED)
    if (!header.includes(column))
      throw validationError([{ field: 'header', reason: `the column '${column}' is required` }]);
  if (new Set(header).size !== header.length)
    throw validationError([{ field: 'header', reason: 'a column is named twice' }]);
  if (rows.length === 0) throw validationError([{ field: 'body', reason: 'has a header but no rows' }]);
  if (rows.length > MAX_IMPORT_ROWS)
    throw validationError([
      { field: 'body', reason: `has ${rows.length} rows; at most ${MAX_IMPORT_ROWS} are taken in one call` },
    ]);
  return { header: header as Column[], rows };
}

/** One row as the body of `POST /identities`. */
function identityBody(header: Column[], value: (column: Column) => string): Record<string, unknown> {
  const body: Record<string, unknown> = { name: value('name') };
  const type = value('type');
  // Spreadsheets change case; the API's types are few and distinct without it.
  if (type) body.type = IDENTITY_TYPES.find((t) => t.toLowerCase() === type.toLowerCase()) ?? type;
  if (header.includes('roleAttributes'))
    body.roleAttributes = value('roleAttributes')
      .split(';')
      .map((a) => a.trim())
      .filter((a) => a !== '');
  const isAdmin = value('isAdmin').toLowerCase();
  if (isAdmin !== '' && isAdmin !== 'true' && isAdmin !== 'false')
    throw new CellError('isAdmin', 'must be true, false or empty');
  body.isAdmin = isAdmin === 'true';
  const enrollment = value('enrollment');
  if (enrollment.toLowerCase() === 'ott') body.enrollment = { ott: true };
  else if (/^updb:/i.test(enrollment)) body.enrollment = { updb: enrollment.slice(5).trim() };
  else if (enrollment !== '') throw new CellError('enrollment', 'must be ott, updb:<username> or empty');
  return body;
}
