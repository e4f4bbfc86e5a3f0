/**
 * Staged enforcement as the agent reads it: a query passing only thanks to warn mode (`warning`) or to an
 * exception (`exception`) carries the raw failure, and the service reads `warned` only when every passing
 * policy stands on a warning; a policy free of warnings keeps it `granted`, with "exception until …" when
 * it stands on an exception.
 */
import { describe, expect, it } from 'vitest';
import { dateInWords, exceptionInWords, warningInWords } from '../../../src/api/deadlines.js';
import { blockedFrom, describeServiceAccess, isReachable } from '../../../src/api/service-access.js';
import type { PostureQuery } from '../../../src/api/services.js';
import { query, service } from './fakes.js';

const MARCH = '2027-03-03T09:00:00.000Z';
const APRIL = '2027-04-12T17:30:00.000Z';
const oldMacos = {
  code: 'OS_VERSION_OUT_OF_RANGE' as const,
  osType: 'macOS',
  osVersion: '14.2.0',
  allowed: [{ type: 'macOS', versions: ['>=14.4.0'] }],
};
const warnedOs = (enforceFrom = MARCH, fields: Partial<PostureQuery> = {}) =>
  query('OS', { isPassing: true, reason: oldMacos, warning: { enforceFrom }, ...fields });
const exceptedEdr = (expiresAt = APRIL) =>
  query('PROCESS', {
    isPassing: true,
    reason: { code: 'PROCESS_NOT_RUNNING', path: '/opt/edr/edrd' },
    exception: { expiresAt },
  });
const policy = (policyId: string, postureQueries: PostureQuery[], isPassing = true) => ({
  policyId,
  policyType: 'Dial' as const,
  isPassing,
  postureQueries,
});

describe('warned', () => {
  it("is its own state, reachable, with the deadline, the fix and the administrator's advice", () => {
    const remediation = 'Update in System Settings';
    const s = service('wiki', [warnedOs(MARCH, { remediation }), query('MFA', { isPassing: true })], true);
    const view = describeServiceAccess(s);
    expect(view).toMatchObject({
      access: 'warned',
      failing: [],
      exceptionUntil: null,
      excepted: [],
      warnings: [
        {
          queryType: 'OS',
          code: 'OS_VERSION_OUT_OF_RANGE',
          enforceFrom: MARCH,
          explanation: 'Update macOS to 14.4 or later (this device runs 14.2.0)',
          remediation,
        },
      ],
    });
    expect(isReachable(view.access)).toBe(true);
    expect(blockedFrom(view)).toBe(MARCH);
    expect(warningInWords(view.warnings[0]!, 'UTC')).toBe(
      'From 3 March 2027, 09:00: Update macOS to 14.4 or later (this device runs 14.2.0)',
    );
  });

  it('stays granted when another passing policy needs no warning', () => {
    const s = service('wiki', [warnedOs()], true);
    s.postureQueries.push(policy('clean', [query('MAC', { isPassing: true })]));
    expect(describeServiceAccess(s)).toMatchObject({ access: 'granted', warnings: [], exceptionUntil: null });
  });

  it('shows the passing policy that keeps access longest, and its earliest deadline', () => {
    const s = service('wiki', [warnedOs(MARCH)], true);
    const later = '2027-06-01T00:00:00.000Z';
    s.postureQueries.push(policy('later', [warnedOs(later), warnedOs('2027-09-01T00:00:00.000Z')]));
    const view = describeServiceAccess(s);
    expect(view.access).toBe('warned');
    expect(view.warnings.map((w) => w.enforceFrom)).toEqual([later, '2027-09-01T00:00:00.000Z']);
    expect(blockedFrom(view)).toBe(later);
  });

  it('a failing policy beside a warned one does not block; the warned one speaks', () => {
    const s = service('wiki', [query('MAC', { reason: { code: 'MAC_NOT_ALLOWED' } })]);
    s.postureQueries.push(policy('warned', [warnedOs()]));
    expect(describeServiceAccess(s)).toMatchObject({ access: 'warned', failing: [] });
  });

  it('a service whose only policy fails is blocked even when another of its checks is merely warned', () => {
    const s = service('wiki', [warnedOs(), query('MAC', { reason: { code: 'MAC_NOT_ALLOWED' } })]);
    const view = describeServiceAccess(s);
    expect(view).toMatchObject({ access: 'blocked', warnings: [], exceptionUntil: null });
    expect(view.failing.map((f) => f.queryType)).toEqual(['MAC']);
  });

  it('leaves a passing query without warning or exception alone (report-only reads as passing)', () => {
    const s = service('wiki', [query('OS', { isPassing: true })], true);
    expect(describeServiceAccess(s)).toMatchObject({ access: 'granted', warnings: [], excepted: [] });
    expect(blockedFrom(describeServiceAccess(s))).toBeNull();
  });
});

describe('exceptions', () => {
  it('keep the service granted and say until when, with the fix for good', () => {
    const view = describeServiceAccess(service('crm', [exceptedEdr()], true));
    expect(view).toMatchObject({
      access: 'granted',
      warnings: [],
      exceptionUntil: APRIL,
      excepted: [{ queryType: 'PROCESS', expiresAt: APRIL, explanation: 'Start edrd (/opt/edr/edrd)' }],
    });
    expect(blockedFrom(view)).toBe(APRIL);
    expect(exceptionInWords(view.excepted[0]!, 'UTC')).toBe(
      'Exception until 12 April 2027, 17:30: Start edrd (/opt/edr/edrd)',
    );
  });

  it('say nothing when another passing policy needs none', () => {
    const s = service('crm', [exceptedEdr()], true);
    s.postureQueries.push(policy('clean', []));
    expect(describeServiceAccess(s)).toMatchObject({ access: 'granted', exceptionUntil: null, excepted: [] });
  });

  it('name the earliest expiry of the policy shown', () => {
    const s = service('crm', [exceptedEdr(APRIL), exceptedEdr('2027-04-01T00:00:00.000Z')], true);
    expect(describeServiceAccess(s).exceptionUntil).toBe('2027-04-01T00:00:00.000Z');
  });
});

describe('mixed', () => {
  it('a policy free of warnings (on an exception) wins over a warned one: granted, with the exception', () => {
    const s = service('erp', [warnedOs('2027-12-01T00:00:00.000Z')], true);
    s.postureQueries.push(policy('excepted', [exceptedEdr()]));
    expect(describeServiceAccess(s)).toMatchObject({
      access: 'granted',
      warnings: [],
      exceptionUntil: APRIL,
    });
  });

  it('a warned policy that also stands on an exception shows both, and is blocked from the earlier', () => {
    const s = service('erp', [warnedOs('2027-05-01T00:00:00.000Z'), exceptedEdr(APRIL)], true);
    const view = describeServiceAccess(s);
    expect(view).toMatchObject({ access: 'warned', exceptionUntil: APRIL });
    expect(view.warnings).toHaveLength(1);
    expect(view.excepted).toHaveLength(1);
    expect(blockedFrom(view)).toBe(APRIL);
  });

  it('every view carries the fields, blocked and checking ones empty', () => {
    const blocked = describeServiceAccess(
      service('x', [query('MAC', { reason: { code: 'MAC_NOT_ALLOWED' } })]),
    );
    const open = describeServiceAccess({ ...service('y', []), postureQueries: [] });
    for (const view of [blocked, open])
      expect(view).toMatchObject({ warnings: [], excepted: [], exceptionUntil: null });
  });
});

describe('dateInWords', () => {
  it('says a date-time plainly in the given zone, and passes an unreadable one through', () => {
    expect(dateInWords(MARCH, 'UTC')).toBe('3 March 2027, 09:00');
    expect(dateInWords(MARCH, 'America/New_York')).toBe('3 March 2027, 04:00');
    expect(dateInWords('soon', 'UTC')).toBe('soon');
  });
});
