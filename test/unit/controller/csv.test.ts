/** The CSV reader behind the identity import: RFC 4180 as spreadsheets write it, records with their lines. */
import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv } from '../../../controller/http/csv.js';

describe('parseCsv', () => {
  it('reads plain and quoted fields, CRLF and LF, and skips blank lines', () => {
    expect(parseCsv('a,b,c\r\n1,"two, three","say ""hi"""\n\n4,,6\n')).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', 'two, three', 'say "hi"'] },
      { line: 4, fields: ['4', '', '6'] },
    ]);
  });

  it('keeps line breaks inside quotes and numbers the record by its first line', () => {
    expect(parseCsv('name\n"first\nsecond"\nlast')).toEqual([
      { line: 1, fields: ['name'] },
      { line: 2, fields: ['first\nsecond'] },
      { line: 4, fields: ['last'] },
    ]);
  });

  it('drops a byte-order mark and keeps a trailing empty field', () => {
    expect(parseCsv('\uFEFFname,type,\n')).toEqual([{ line: 1, fields: ['name', 'type', ''] }]);
  });

  it.each([
    ['name\n"open', 2, /not closed/],
    ['name\n"closed"junk', 2, /closing quote/],
  ])('refuses %j naming the line', (text, line, reason) => {
    let error: unknown;
    try {
      parseCsv(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CsvError);
    expect((error as CsvError).line).toBe(line);
    expect((error as CsvError).reason).toMatch(reason);
  });
});
