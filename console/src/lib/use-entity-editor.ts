/**
 * Creating, changing and deleting one entity of a collection, the way any script would: `POST /<collection>`,
 * `PATCH /<collection>/<id>`, `DELETE /<collection>/<id>` (with `?cascade=true` when the administrator
 * chooses to remove it from the policies that name it). Field errors are kept for the form to place. A
 * `previewed` editor (posture checks, service policies: what decides access) previews each save first
 * (use-impact-preview.ts) and saves only what the administrator confirmed.
 */
import { useState } from 'react';
import { api } from '../api/client.js';
import { fieldErrorsOf, type FieldErrors } from './field-errors.js';
import { consumeCreated, markCreated } from './just-created.js';
import { navigate } from './router.js';
import { useLoad, type Loaded } from './use-load.js';
import {
  carryNote,
  previewChange,
  removalImpact,
  useCarriedNote,
  type PendingImpact,
} from './use-impact-preview.js';

export interface EntityEditor<T> {
  collection: string;
  id: string | undefined;
  existing: Loaded<T | undefined>;
  errors: FieldErrors;
  failure: unknown;
  busy: boolean;
  /** set after a change was saved, until the next edit */
  saved: boolean;
  /** set when this form opened on the entity the console just created, until the next edit */
  created: boolean;
  save(body: Record<string, unknown>): Promise<void>;
  remove(cascade: boolean): Promise<void>;
  /** a previewed change that alters someone's access, waiting for `confirm` or `dismiss` */
  pending: PendingImpact | null;
  confirm(): Promise<void>;
  dismiss(): void;
  /** what the preview of the last save found when it changed nobody's access */
  note: string | null;
  /** a previewed editor's words for what deleting the entity would do to access */
  removalImpact?: () => Promise<string | null>;
}

export function useEntityEditor<T>(
  collection: string,
  id: string | undefined,
  options: { previewed?: boolean } = {},
): EntityEditor<T> {
  const existing = useLoad(
    () => (id ? api.get<T>(`/${collection}/${id}`).then((a) => a.data) : Promise.resolve(undefined)),
    [collection, id],
  );
  const [errors, setErrors] = useState<FieldErrors>([]);
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [pending, setPending] = useState<PendingImpact | null>(null);
  const [note, setNote] = useCarriedNote(collection, id);
  const [created, setCreated] = useState(() => consumeCreated(id));

  const attempt = async (action: () => Promise<void>) => {
    setBusy(true);
    setErrors([]);
    setFailure(null);
    setSaved(false);
    setPending(null);
    setCreated(false);
    try {
      await action();
    } catch (err) {
      setErrors(fieldErrorsOf(err));
      setFailure(err);
      throw err;
    } finally {
      setBusy(false);
    }
  };

  const write = async (body: Record<string, unknown>, savedNote: string | null) => {
    if (id) {
      await api.patch(`/${collection}/${id}`, body);
      setNote(savedNote);
      setSaved(true);
      existing.reload();
    } else {
      const made = await api.post<{ id: string }>(`/${collection}`, body);
      markCreated(made.data.id);
      carryNote(collection, made.data.id, savedNote);
      navigate(`/${collection}/${made.data.id}`);
    }
  };

  return {
    collection,
    id,
    existing,
    errors,
    failure,
    busy,
    saved,
    created,
    pending,
    note,
    save: (body) =>
      attempt(async () => {
        setNote(null);
        if (!options.previewed) return write(body, null);
        const outcome = await previewChange(collection, id, body);
        if (outcome.save) return write(body, outcome.note);
        setPending(outcome.pending);
      }).catch(() => undefined),
    confirm: () => {
      const body = pending?.body;
      return body ? attempt(() => write(body, null)).catch(() => undefined) : Promise.resolve();
    },
    dismiss: () => setPending(null),
    ...(options.previewed && id ? { removalImpact: () => removalImpact(collection, id) } : {}),
    remove: (cascade) =>
      attempt(async () => {
        await api.delete(`/${collection}/${id}${cascade ? '?cascade=true' : ''}`);
        navigate(`/${collection}`);
      }),
  };
}
