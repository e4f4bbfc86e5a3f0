/**
 * SCREEN_LOCK check: the screen locks by itself after at most `maxIdleMinutes` of idle. Fails when the lock is
 * off (SCREEN_LOCK_OFF), when it locks later than that (SCREEN_LOCK_TOO_LATE; exactly the maximum passes), and
 * when either value could not be read (SCREEN_LOCK_UNKNOWN: a lock whose delay is unknown may never come).
 */
import { screenLock } from '../../../src/api/posture-types/screen-lock.js';
import {
  describedCheck,
  factOf,
  failing,
  flagOf,
  noDataYet,
  passing,
  unknownFact,
} from './described-check.js';

const minutesOf = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;

export const screenLockCheck = describedCheck(screenLock, {
  evaluate(check, data) {
    const maxIdleMinutes = check.options.maxIdleMinutes as number;
    const expectedValue = { lockEnabled: true, maxIdleMinutes };
    const fact = factOf(data, screenLock.id);
    if (!fact) return noDataYet(screenLock, expectedValue);
    const lockEnabled = flagOf(fact.value.lockEnabled);
    const idleMinutes = minutesOf(fact.value.idleMinutes);
    const actualValue = { lockEnabled, idleMinutes };
    if (lockEnabled === false)
      return failing(actualValue, expectedValue, 'the screen never locks by itself', {
        code: 'SCREEN_LOCK_OFF',
      });
    if (lockEnabled === null || idleMinutes === null)
      return unknownFact('SCREEN_LOCK_UNKNOWN', fact, actualValue, expectedValue, 'when its screen locks');
    if (idleMinutes > maxIdleMinutes)
      return failing(
        actualValue,
        expectedValue,
        `the screen locks after ${idleMinutes} idle minutes, more than the ${maxIdleMinutes} allowed`,
        { code: 'SCREEN_LOCK_TOO_LATE', idleMinutes, maxIdleMinutes },
      );
    return passing(actualValue, expectedValue);
  },
});
