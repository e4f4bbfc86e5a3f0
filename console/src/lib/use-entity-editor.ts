/**
 * Creating, changing and deleting one entity of a collection, the way any script would: `POST /<collection>`,
 * `PATCH /<collection>/<id>`, `DELETE /<collection>/<id>` (with `?cascade=true` when the administrator
 * chooses to remove it from the policies that name it). Field errors are kept for the form to place.
 */
import { useState } from 'react';
import { api } from '../api/client.js';
import { fieldErrorsOf, type FieldErrors } from './field-errors.js';
import { consumeCreated, markCreated } from './just-created.js';
import { navigate } from './router.js';
import { useLoad, type Loaded } from './use-load.js';

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
}

export function useEntityEditor<T>(collection: string, id: string | undefined): EntityEditor<T> {
  const existing = useLoad(
    () => (id ? api.get<T>(`/${collection}/${id}`).then((a) => a.data) : Promise.resolve(undefined)),
    [collection, id],
  );
  const [errors, setErrors] = useState<FieldErrors>([]);
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [created, setCreated] = useState(() => consumeCreated(id));

  const attempt = async (action: () => Promise<void>) => {
    setBusy(true);
    setErrors([]);
    setFailure(null);
    setSaved(false);
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

  return {
    collection,
    id,
    existing,
    errors,
    failure,
    busy,
    saved,
    created,
    save: (body) =>
      attempt(async () => {
        if (id) {
          await api.patch(`/${collection}/${id}`, body);
          setSaved(true);
          existing.reload();
        } else {
          const made = await api.post<{ id: string }>(`/${collection}`, body);
          markCreated(made.data.id);
          navigate(`/${collection}/${made.data.id}`);
        }
      }).catch(() => undefined),
    remove: (cascade) =>
      attempt(async () => {
        await api.delete(`/${collection}/${id}${cascade ? '?cascade=true' : ''}`);
        navigate(`/${collection}`);
      }),
  };
}
