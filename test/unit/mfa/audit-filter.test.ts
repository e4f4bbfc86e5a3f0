import { describe, expect, it } from 'vitest';
import { parseAuditFilter } from '../../../controller/mfa/audit-filter.js';
import { ApiError } from '../../../controller/api-error.js';

describe('parseAuditFilter', () => {
  it('reads equality clauses joined with and', () => {
    expect(parseAuditFilter(undefined)).toEqual({});
    expect(parseAuditFilter('  ')).toEqual({});
    expect(parseAuditFilter('eventType = "authenticate"')).toEqual({ eventType: 'authenticate' });
    expect(parseAuditFilter('identityId="a b" AND outcome = "failure" and sourceIp = "::1"')).toEqual({
      identityId: 'a b',
      outcome: 'failure',
      sourceIp: '::1',
    });
    expect(parseAuditFilter('factor = "recovery-code"')).toEqual({ factor: 'recovery-code' });
    expect(parseAuditFilter('identityId = "quote\\"d"')).toEqual({ identityId: 'quote"d' });
  });

  it('refuses unknown fields, other operators and dangling joins with 400 INVALID_FILTER', () => {
    for (const bad of [
      'secret = "x"',
      'eventType != "verify"',
      'eventType = "verify" and',
      'eventType = "verify" or outcome = "failure"',
      'eventType = verify',
      'eventType = "a" outcome = "b"',
    ]) {
      let error: unknown;
      try {
        parseAuditFilter(bad);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe('INVALID_FILTER');
      expect((error as ApiError).status).toBe(400);
    }
  });
});
