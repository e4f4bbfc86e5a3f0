/**
 * The audit trail as CSV (RFC 4180: CRLF line ends, cells with a comma, quote or line break quoted, quotes
 * doubled), for a spreadsheet or a SIEM's CSV import. A cell a spreadsheet would run as a formula (starting
 * with `=`, `+`, `-`, `@`, a tab or a carriage return; OWASP's CSV injection list) is prefixed with `'`, so an
 * address or a name an attacker chose cannot become a formula on an auditor's machine.
 */
import type { auditEventToWire } from './audit-wire.js';

type WireEvent = ReturnType<typeof auditEventToWire>;

export const AUDIT_CSV_COLUMNS = [
  'id',
  'type',
  'createdAt',
  'actor',
  'address',
  'identityId',
  'serviceId',
  'reference',
  'details',
] as const satisfies readonly (keyof WireEvent)[];

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: text as it is, anything structured as compact JSON, null as empty. */
export function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvHeader = (): string => `${AUDIT_CSV_COLUMNS.join(',')}\r\n`;

export const csvRow = (event: WireEvent): string =>
  `${AUDIT_CSV_COLUMNS.map((column) => csvCell(event[column])).join(',')}\r\n`;
