/**
 * The console's new-exception form without a browser: a week by default, one identity or roles, one check
 * or every check, and "one check" with none picked refused here (sent, it would read as every check).
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EXCEPTION_DAYS,
  exceptionBody,
  initialExceptionState,
} from '../../../console/src/pages/exceptions/exception-form-state.js';
import { instantOf } from '../../../console/src/lib/local-time.js';

const now = new Date('2026-11-28T10:15:00.000Z');

describe('console exception form', () => {
  it('expires a week from now unless changed', () => {
    expect(DEFAULT_EXCEPTION_DAYS).toBe(7);
    const state = initialExceptionState(now);
    expect(instantOf(state.expiresAt)).toBe('2026-12-05T10:15:00.000Z');
  });

  it('sends one identity and one check, with the reason trimmed', () => {
    const state = {
      ...initialExceptionState(now),
      identityId: 'id-1',
      postureCheckId: 'pc-1',
      reason: ' new laptop ',
    };
    expect(exceptionBody(state)).toEqual({
      body: {
        identityId: 'id-1',
        identityRoles: null,
        postureCheckId: 'pc-1',
        expiresAt: '2026-12-05T10:15:00.000Z',
        reason: 'new laptop',
      },
    });
  });

  it('sends roles one per line and null for every check', () => {
    const state = {
      ...initialExceptionState(now),
      target: 'roles' as const,
      identityId: 'ignored',
      roles: '#contractors\n\n@bob\n',
      scope: 'all' as const,
      postureCheckId: 'ignored',
      reason: 'audit',
    };
    const built = exceptionBody(state);
    expect(built).toMatchObject({
      body: { identityId: null, identityRoles: ['#contractors', '@bob'], postureCheckId: null },
    });
  });

  it('refuses "one check" with no check picked instead of sending every check', () => {
    expect(exceptionBody({ ...initialExceptionState(now), identityId: 'id-1', reason: 'x' })).toEqual({
      problems: [{ field: 'postureCheckId', reason: 'choose a check, or "every check"' }],
    });
  });
});
