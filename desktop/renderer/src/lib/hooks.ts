/** React hooks over the bridge: live session, services and prompt, a ticking clock, and form actions. */
import { useCallback, useEffect, useState } from 'react';
import type { PromptView, ServicesView, SessionView } from '../../../ipc/views.js';
import { messageOf, postern } from './postern.js';

/** A value read once, then kept current by its change event. */
function useLive<T>(
  read: () => Promise<T>,
  listen: (listener: (value: T) => void) => () => void,
): T | undefined {
  const [value, setValue] = useState<T>();
  useEffect(() => {
    let live = true;
    const off = listen((next) => setValue(next));
    read().then(
      (first) => live && setValue((current) => current ?? first),
      () => undefined,
    );
    return () => {
      live = false;
      off();
    };
  }, [read, listen]);
  return value;
}

export const useSession = (): SessionView | undefined =>
  useLive(postern.session.get, postern.session.onChanged);
export const useServices = (): ServicesView | undefined =>
  useLive(postern.services.get, postern.services.onChanged);
export const usePrompt = (): PromptView | null | undefined =>
  useLive(postern.prompt.get, postern.prompt.onChanged);

/** The time now, re-read every `ms` (for countdowns). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export interface Action<A extends unknown[], R> {
  run: (...args: A) => Promise<R | undefined>;
  busy: boolean;
  error: string | null;
  clearError: () => void;
}

/** Runs an async call for a form: `busy` meanwhile, and `error` holding the message of a failure. */
export function useAction<A extends unknown[], R>(call: (...args: A) => Promise<R>): Action<A, R> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    async (...args: A) => {
      setBusy(true);
      setError(null);
      try {
        return await call(...args);
      } catch (failure) {
        setError(messageOf(failure));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [call],
  );
  return { run, busy, error, clearError: () => setError(null) };
}

/** The hash route (`#/mfa` → `mfa`), following the tray's navigate events too. */
export function useRoute(): [string, (route: string) => void] {
  const read = () => window.location.hash.replace(/^#\/?/, '') || 'services';
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onHash = () => setRoute(read());
    window.addEventListener('hashchange', onHash);
    const off = postern.app.onNavigate((view) => (window.location.hash = `#/${view}`));
    return () => {
      window.removeEventListener('hashchange', onHash);
      off();
    };
  }, []);
  return [route, (next) => (window.location.hash = `#/${next}`)];
}

/**
 * Answering a TOTP prompt: `busy` stays true for the attempt just answered until the agent accepts (the
 * prompt ends) or asks again (a new attempt), so the form shows "Checking" in between; `error` is the
 * call's failure or the agent's word on the last attempt.
 */
export function usePromptAnswer(prompt: PromptView) {
  const [answered, setAnswered] = useState(0);
  const answer = useAction(async (code: string) => {
    setAnswered(prompt.attempt);
    await postern.prompt.answer({ promptId: prompt.id, code });
  });
  return { run: answer.run, busy: answered === prompt.attempt, error: answer.error ?? prompt.error };
}
