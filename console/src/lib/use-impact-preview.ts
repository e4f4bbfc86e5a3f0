/**
 * Saving a change that decides access (a posture check, a service policy) only after seeing what it does:
 * `POST /<collection>/preview` with the body about to be saved (and the id for a change) answers, from the
 * posture data already stored and without storing anything, who would newly be refused and who newly let in.
 * When it changes nobody's access the save goes ahead at once, and says so; otherwise the editor holds the
 * preview until the administrator confirms or goes back to the form.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client.js';
import { ApiError } from '../api/api-error.js';
import type { AccessPreview } from '../api/rollout-types.js';
import { changesNothing, impactHeadline } from '../../../src/api/access-preview-text.js';

export interface PendingImpact {
  preview: AccessPreview;
  body: Record<string, unknown>;
}

/** What a preview decided: save now (with a note when it was checked), or wait for a confirmation. */
export type PreviewOutcome = { save: true; note: string | null } | { save: false; pending: PendingImpact };

export const NOTHING_CHANGES = 'Checked before saving: no device gains or loses access with this change.';

/** The controller's preview of a change; null from a controller without one (older than staged enforcement). */
async function askPreview(collection: string, body: Record<string, unknown>): Promise<AccessPreview | null> {
  try {
    return (await api.post<AccessPreview>(`/${collection}/preview`, body)).data;
  } catch (error) {
    // An unknown route is a 404 naming no field; a refused body is a 400 naming one.
    if (error instanceof ApiError && error.status === 404 && error.problems.length === 0) return null;
    throw error;
  }
}

export async function previewChange(
  collection: string,
  id: string | undefined,
  body: Record<string, unknown>,
): Promise<PreviewOutcome> {
  const preview = await askPreview(collection, id ? { ...body, id } : body);
  // Without a preview the change is saved as before, unannounced.
  if (!preview) return { save: true, note: null };
  return changesNothing(preview)
    ? { save: true, note: NOTHING_CHANGES }
    : { save: false, pending: { preview, body } };
}

/** What deleting the entity would do to access, in words; null where the controller has no preview. */
export async function removalImpact(collection: string, id: string): Promise<string | null> {
  const preview = await askPreview(collection, { id, delete: true });
  return preview && impactHeadline(preview);
}

/** A note that outlives the page it was made on: a new entity's own page opens after its create. */
let carried: { path: string; note: string } | null = null;

export function carryNote(collection: string, id: string, note: string | null): void {
  carried = note ? { path: `${collection}/${id}`, note } : null;
}

/** The note carried to this entity's page, taken once (state survives StrictMode's second mount, the note not). */
export function useCarriedNote(
  collection: string,
  id: string | undefined,
): [string | null, (note: string | null) => void] {
  const path = `${collection}/${id}`;
  const state = useState<string | null>(() => (carried?.path === path ? carried.note : null));
  useEffect(() => {
    if (carried?.path === path) carried = null;
  }, [path]);
  return state;
}
