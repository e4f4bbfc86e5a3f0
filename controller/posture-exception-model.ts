/**
 * Posture check exceptions (Postern): an administrator lets one identity, or the identities carrying some role
 * attributes, through one check (or every check) although it fails, until a deadline, for a stated reason.
 * Each is stored as a document like the catalogue's entities (its `name` is its id: exceptions have no name of
 * their own, and the document tables want a unique one). An exception whose `expiresAt` has passed stays as
 * a record (state `expired`) and no longer applies. Every grant, change, deletion and expiry is kept in the
 * exception's history, which outlives the exception.
 */
import type { Entity } from './model.js';

/** Who did it: the administrator's identity, as it was named then. */
export interface Actor {
  id: string;
  name: string;
}

export interface PostureCheckException extends Entity {
  /** exactly one of identityId and identityRoles is set */
  identityId: string | null;
  /** `#attr` or `@id` roles, any of which selects an identity */
  identityRoles: string[] | null;
  /** null: every check */
  postureCheckId: string | null;
  expiresAt: Date;
  reason: string;
  grantedBy: Actor;
  updatedBy: Actor;
}

export const EXCEPTION_ACTIONS = ['granted', 'changed', 'deleted', 'expired'] as const;
export type ExceptionAction = (typeof EXCEPTION_ACTIONS)[number];

/** One entry of an exception's history; `name` is its id, `createdAt` the moment it happened. */
export interface ExceptionHistoryEntry extends Entity {
  exceptionId: string;
  action: ExceptionAction;
  /** null: nobody did it (an expiry) */
  by: Actor | null;
  expiresAt: Date;
  reason: string;
}

export const isActive = (exception: Pick<PostureCheckException, 'expiresAt'>, now: Date): boolean =>
  exception.expiresAt.getTime() > now.getTime();
