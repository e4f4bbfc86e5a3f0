/**
 * The store's asynchronous face. Repositories are described once, as plain synchronous interfaces (what an
 * in-process backend such as SQLite does); `Async<R>` is the same interface with every method answering a
 * promise. The controller only ever uses the asynchronous face, so a networked backend (PostgreSQL) fits the
 * same contract.
 */
import { methodNames } from './method-names.js';

export type Async<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : T[K] extends object
      ? Async<T[K]>
      : T[K];
};

/** Runs one synchronous repository call when the backend allows it (see SqliteStore's lock). */
export type CallGate = <R>(call: () => R) => Promise<R>;

/**
 * Wraps a synchronous repository so every method answers a promise, each call passing through `gate`.
 * `nested` names properties that are repositories themselves (the posture store's `data`, `sessions`, ...).
 * Built once, eagerly, as a plain object: a Proxy would cost a lookup on every call of the hottest paths.
 */
export function asyncFacade<T extends object>(
  target: T,
  gate: CallGate,
  nested: readonly (keyof T & string)[] = [],
): Async<T> {
  const facade: Record<string, unknown> = {};
  for (const name of methodNames(target)) {
    const method = (target as Record<string, (...args: unknown[]) => unknown>)[name]!;
    facade[name] = (...args: unknown[]) => gate(() => method.apply(target, args));
  }
  for (const name of nested) facade[name] = asyncFacade(target[name] as object, gate);
  return facade as Async<T>;
}
