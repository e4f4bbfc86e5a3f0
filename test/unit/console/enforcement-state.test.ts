/**
 * The console's Enforcement section without a browser: the deadline typed in local time goes to the API as one
 * RFC 3339 instant and comes back into the input unchanged; only a warning carries a deadline; text that is no
 * date goes as typed, for the API to refuse by name.
 */
import { describe, expect, it } from 'vitest';
import {
  enforcementBody,
  enforcementStateOf,
  suggestedDeadline,
} from '../../../console/src/pages/posture-checks/enforcement/enforcement-state.js';
import { instantOf, localInputOf } from '../../../console/src/lib/local-time.js';

describe('console enforcement section state', () => {
  it('reads a local date-time as that moment in local time, and shows an instant back the same', () => {
    expect(instantOf('2026-03-03T09:00')).toBe(new Date(2026, 2, 3, 9, 0).toISOString());
    const instant = '2026-03-03T08:30:00.000Z';
    const local = localInputOf(instant);
    expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(instantOf(local)).toBe(instant);
  });

  it('sends empty as null and anything else that is no date as typed', () => {
    expect(instantOf('')).toBeNull();
    expect(instantOf('  ')).toBeNull();
    expect(instantOf('next tuesday')).toBe('next tuesday');
    expect(instantOf('2026-13-45T99:99')).toBe('2026-13-45T99:99');
    expect(localInputOf(null)).toBe('');
    expect(localInputOf('garbage')).toBe('');
  });

  it('defaults to enforce, and only a warning sends a deadline', () => {
    expect(enforcementStateOf(undefined)).toEqual({ mode: 'enforce', enforceFrom: '' });
    expect(enforcementBody({ mode: 'report-only', enforceFrom: '2026-03-03T09:00' })).toEqual({
      mode: 'report-only',
      enforceFrom: null,
    });
    expect(enforcementBody({ mode: 'warn', enforceFrom: '' })).toEqual({ mode: 'warn', enforceFrom: null });
    const warn = enforcementStateOf({ mode: 'warn', enforceFrom: '2026-03-03T08:30:00.000Z' });
    expect(enforcementBody(warn)).toEqual({ mode: 'warn', enforceFrom: '2026-03-03T08:30:00.000Z' });
  });

  it('suggests a deadline two weeks ahead at nine in the morning', () => {
    const now = new Date(2026, 10, 28, 17, 45);
    expect(suggestedDeadline(now)).toBe(localInputOf(new Date(2026, 11, 12, 9, 0).toISOString()));
  });
});
