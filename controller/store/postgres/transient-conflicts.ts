/**
 * Conflicts PostgreSQL resolves by failing one side, which succeeds when simply run again: a deadlock (two
 * transactions each waiting for a row the other holds: a report upserting an identity's facts while the
 * written-behind times of many identities move in one statement, on another instance) and a serialization
 * failure. Neither is the client's doing, so neither may reach it as a 500: the store runs the whole
 * transaction (or the lone statement) again, a few times, after a short random pause that lets the winner
 * commit first.
 */
const RETRYABLE = new Set([
  '40P01', // deadlock_detected
  '40001', // serialization_failure
]);

/** Attempts in all; a conflict that survives this many is reported as the error it is. */
const CONFLICT_ATTEMPTS = 4;

function isTransientConflict(err: unknown): boolean {
  return RETRYABLE.has((err as { code?: unknown })?.code as string);
}

/** Runs `attempt` until it does not fail with a transient conflict, at most CONFLICT_ATTEMPTS times. */
export async function retryTransientConflicts<T>(
  attempt: () => Promise<T>,
  onConflict: () => void = () => {},
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isTransientConflict(err) || n >= CONFLICT_ATTEMPTS) throw err;
      onConflict();
      // 5-20 ms, growing: long enough for the winner's commit, short against a request's budget
      await new Promise((resolve) => setTimeout(resolve, n * (5 + Math.random() * 15)));
    }
  }
}
