/**
 * 2: `attempt_counters` as the shared attempt limiters use it (platform/limits/pg-limiter-store.ts), the same
 * model as the in-memory limiter (platform/limits/memory-failure-counters.ts), so both backends answer alike:
 *
 * - `failures`: the times of the failures still in the window: a sliding window. The fixed window of 001
 *   (`window_start`, `count`) let a guesser spend one window's budget just before it ends and the next one's
 *   just after, twice the limit in a moment. Nothing wrote those columns yet; they go.
 * - `holds`: when each place held by an attempt being judged was taken (parallel attempts share the budget;
 *   a place whose controller died before settling it stops counting after a lease);
 * - `blocks`: how many blocks the key has had, which the next one doubles;
 * - `touched_at`: the last write, to forget keys that have long been quiet.
 *
 * All times are the controllers' clocks, given by the statements (not `now()`): see pg-limiter-store.ts.
 */
export const attemptCounters = `
  ALTER TABLE attempt_counters
    DROP COLUMN window_start,
    DROP COLUMN count,
    ADD COLUMN failures timestamptz[] NOT NULL DEFAULT '{}',
    ADD COLUMN holds timestamptz[] NOT NULL DEFAULT '{}',
    ADD COLUMN blocks integer NOT NULL DEFAULT 0,
    ADD COLUMN touched_at timestamptz NOT NULL DEFAULT now();
`;
