/**
 * Posture check exceptions (Postern): `/posture-check-exceptions`, an administrator's temporary pass for one
 * identity, or the identities carrying some roles, through one posture check or every check. The bodies, the
 * entity and its history. What the schemas cannot say (exactly one of `identityId` and `identityRoles`, the
 * references exist, `expiresAt` in the future and within the controller's maximum) the controller checks,
 * naming the field.
 */
import { Type } from '@sinclair/typebox';
import { BaseEntity, DateTime, Reference, Roles, Sentence, Tags, writeBodies } from './fields.js';

/** How long an exception's reason may be: a sentence or two an auditor reads, with a ticket reference. */
export const EXCEPTION_REASON_MAX = 1000;

const Actor = Type.Object({ id: Type.String(), name: Type.String() });

export const { create: PostureCheckExceptionCreate, patch: PostureCheckExceptionPatch } = writeBodies(
  {
    identityId: Type.Optional(Type.Union([Reference, Type.Null()], { description: 'one identity, by id' })),
    identityRoles: Type.Optional(
      Type.Union([Roles, Type.Null()], {
        description: 'or every identity answering to any of these roles (#attribute, @id)',
      }),
    ),
    postureCheckId: Type.Optional(
      Type.Union([Reference, Type.Null()], { description: 'the check excepted; null: every check' }),
    ),
    expiresAt: DateTime,
    reason: Type.String({ ...Sentence, minLength: 1, maxLength: EXCEPTION_REASON_MAX }),
    tags: Type.Optional(Tags),
  },
  [],
  'exactly one of identityId and identityRoles',
);

export const PostureCheckExceptionDetail = Type.Object(
  {
    ...BaseEntity,
    identityId: Type.Union([Type.String(), Type.Null()]),
    identityRoles: Type.Union([Type.Array(Type.String()), Type.Null()]),
    postureCheckId: Type.Union([Type.String(), Type.Null()]),
    expiresAt: DateTime,
    reason: Type.String(),
    grantedBy: Actor,
    updatedBy: Actor,
    state: Type.Union([Type.Literal('active'), Type.Literal('expired')]),
  },
  { title: 'postureCheckExceptionDetail' },
);

export const ExceptionHistoryItem = Type.Object(
  {
    at: DateTime,
    action: Type.Union(['granted', 'changed', 'deleted', 'expired'].map((a) => Type.Literal(a))),
    by: Type.Union([Actor, Type.Null()], { description: 'null: nobody did it (an expiry)' }),
    expiresAt: DateTime,
    reason: Type.String(),
  },
  { title: 'postureCheckExceptionHistoryItem' },
);
