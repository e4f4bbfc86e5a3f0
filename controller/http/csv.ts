/**
 * CSV as RFC 4180 writes it (and spreadsheets export it): fields separated by commas, a field in double
 * quotes may hold commas, line breaks and `""` for a quote; records end with CRLF or LF. A leading byte-order
 * mark is dropped, and blank lines are skipped. Each record keeps the line it starts on, so an answer can
 * name the row a person sees in their editor.
 */
export interface CsvRecord {
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  // After a closing quote only a separator or the end of the record may follow.
  let closed = false;
  const endRecord = () => {
    fields.push(field);
    if (fields.length > 1 || fields[0] !== '') records.push({ line: start, fields });
    fields = [];
    field = '';
    closed = false;
  };
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (quoted) {
      if (c === '"' && input[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
        closed = true;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === ',') {
      fields.push(field);
      field = '';
      closed = false;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && input[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else if (closed) {
      throw new CsvError(line, 'only a comma or the end of the line may follow a closing quote');
    } else if (c === '"' && field === '') {
      quoted = true;
    } else {
      field += c;
    }
  }
  if (quoted) throw new CsvError(start, 'a quoted field is not closed');
  endRecord();
  return records;
}
