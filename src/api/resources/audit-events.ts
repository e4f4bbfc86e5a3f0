/**
 * The audit trail (Postern, docs/AUDIT.md): one event per administrative change, sign-in, failed sign-in and
 * access transition, newest first unless sorted otherwise.
 */
import { Type } from '@sinclair/typebox';
import { DateTime } from './fields.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const AuditEventDetail = Type.Object(
  {
    id: Type.String(),
    type: Type.String({
      description: 'admin.created, auth.sign-in-failed, access.refused, … (docs/AUDIT.md)',
    }),
    createdAt: DateTime,
    actor: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
      description: 'who did it; null when the controller decided or nobody was known',
    }),
    address: Type.Union([Type.String(), Type.Null()], {
      description: 'the client address the request came from',
    }),
    identityId: NullableString,
    serviceId: NullableString,
    reference: Type.String({ description: 'a short code a user can quote, e.g. 7K2Q-PX' }),
    details: Type.Record(Type.String(), Type.Unknown()),
  },
  { title: 'auditEventDetail' },
);

/** `GET /audit-events/export`: the format, and the list's filter without its order and paging clauses. */
export const AuditExportQuerystring = Type.Object({
  format: Type.Union([Type.Literal('jsonl'), Type.Literal('csv')], {
    description: 'jsonl: one event per line, as the list shows it; csv: RFC 4180 with a header row',
  }),
  // The list's 1,024 less what the export adds to each page's filter (the resume point and the order, under
  // 200 characters: controller/audit/audit-export.ts).
  filter: Type.Optional(Type.String({ maxLength: 800 })),
});

export const AuditExportFile = Type.String({
  description:
    'JSON lines, or CSV with the columns id,type,createdAt,actor,address,identityId,serviceId,reference,details',
});
