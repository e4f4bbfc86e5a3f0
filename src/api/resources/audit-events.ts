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
