/** Loading data for a page: the value, the error, and a way to load again after a change. */
import { useCallback, useEffect, useState } from 'react';

export interface Loaded<T> {
  value: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on `reload`); an answer that arrives after a newer request is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => current && setState({ value, loading: false }),
      (error: unknown) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
    // The caller names what `load` depends on: the function itself is new on every render.
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { value: state.value, error: state.error, loading: state.loading, reload };
}
