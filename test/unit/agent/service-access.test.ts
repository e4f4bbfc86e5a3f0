import { describe, expect, it } from 'vitest';
import { binaryName, explainFailure } from '../../../src/api/explain-failure.js';
import { describeTotpPrompt, formatCountdown } from '../../../src/api/prompts.js';
import { describeServiceAccess, describeServices } from '../../../src/api/service-access.js';
import { planCollection } from '../../../src/agent/posture/query-plan.js';
import { query, service } from './fakes.js';

describe('explainFailure', () => {
  it('says what to do for each check type', () => {
    expect(
      explainFailure({
        queryType: 'OS',
        osName: 'Linux',
        expectedValue: [{ type: 'Linux', versions: ['>=6.8.0'] }],
      }),
    ).toBe('Update Linux to 6.8 or later');
    expect(
      explainFailure({
        queryType: 'OS',
        osName: 'Linux',
        expectedValue: [{ type: 'Windows', versions: [] }, { type: 'macOS' }],
      }),
    ).toBe('Use an allowed operating system (Windows or macOS)');
    expect(explainFailure({ queryType: 'OS', osName: 'Windows' })).toBe(
      'Update Windows to a version the policy allows',
    );
    expect(explainFailure({ queryType: 'MAC' })).toBe('Connect from an allowed network adapter');
    expect(explainFailure({ queryType: 'DOMAIN', expectedValue: ['CORP'] })).toBe('Join the CORP domain');
    expect(explainFailure({ queryType: 'DOMAIN' })).toBe("Join your organisation's Windows domain");
    expect(explainFailure({ queryType: 'PROCESS', paths: ['C:\\Program Files\\Falcon\\falcon.exe'] })).toBe(
      'Start falcon.exe from C:\\Program Files\\Falcon\\falcon.exe',
    );
    expect(
      explainFailure({
        queryType: 'PROCESS',
        paths: ['/opt/edr/agent'],
        actualValue: { isRunning: true, hash: 'ab' },
      }),
    ).toBe('Install an approved build of agent at /opt/edr/agent');
    expect(explainFailure({ queryType: 'PROCESS_MULTI', semantic: 'AnyOf', paths: ['/a/x', '/b/y'] })).toBe(
      'Start one of: x from /a/x, y from /b/y',
    );
    expect(
      explainFailure({
        queryType: 'PROCESS_MULTI',
        paths: ['/a/x', '/b/y'],
        actualValue: [{ path: '/a/x', isRunning: true }],
      }),
    ).toBe('Start y from /b/y');
    expect(explainFailure({ queryType: 'MFA' })).toBe('Enter your authenticator code');
    expect(explainFailure({ queryType: 'MFA', mfaEnrolled: false })).toBe(
      'Set up an authenticator app (MFA) for your account',
    );
  });

  it('names binaries from POSIX and Windows paths', () => {
    expect(binaryName('/usr/bin/node')).toBe('node');
    expect(binaryName('C:\\Windows\\explorer.exe')).toBe('explorer.exe');
  });
});

describe('describeServiceAccess', () => {
  it('grants a service when any of its policies passes', () => {
    const s = service('wiki', [query('OS')]);
    s.postureQueries.push({ policyId: 'open', policyType: 'Dial', isPassing: true, postureQueries: [] });
    expect(describeServiceAccess(s)).toMatchObject({ access: 'granted', failing: [] });
  });

  it('shows the policy closest to passing, and calls an MFA-only failure "mfa-needed"', () => {
    const s = service('git', [query('OS'), query('MAC')]);
    s.postureQueries.push({
      policyId: 'p2',
      policyType: 'Dial',
      isPassing: false,
      postureQueries: [query('MFA')],
    });
    const view = describeServiceAccess(s, { osName: 'Linux' });
    expect(view.access).toBe('mfa-needed');
    expect(view.failing.map((f) => f.explanation)).toEqual(['Enter your authenticator code']);
    expect(describeServiceAccess(s, { mfaEnrolled: false }).access).toBe('blocked');
  });

  it('ignores Bind policies when judging Dial access', () => {
    const s = service('db', [query('PROCESS', { process: { path: '/opt/db' } })]);
    s.postureQueries.push({ policyId: 'bind', policyType: 'Bind', isPassing: true, postureQueries: [] });
    expect(describeServiceAccess(s)).toMatchObject({
      access: 'blocked',
      failing: [{ explanation: 'Start db from /opt/db' }],
    });
  });

  it('reports the smallest MFA time left on passing policies, and sorts by name', () => {
    const a = service('b-svc', [query('MFA', { isPassing: true, timeoutRemaining: 90 })], true);
    const b = service('a-svc', [], true);
    expect(describeServices([a, b]).map((v) => [v.name, v.mfaTimeoutRemaining])).toEqual([
      ['a-svc', null],
      ['b-svc', 90],
    ]);
  });
});

describe('planCollection', () => {
  it('keeps one id per type, chosen independently of service order', () => {
    const one = service('one', [{ ...query('OS'), id: 'b' }]);
    const two = service('two', [{ ...query('OS'), id: 'a' }]);
    expect(planCollection([one, two], 'linux').os).toBe('a');
    expect(planCollection([two, one], 'linux').os).toBe('a');
  });

  it('skips processes meant for another OS', () => {
    const s = service('x', [
      query('PROCESS_MULTI', {
        processes: [
          { osType: 'Windows', path: 'C:\\a.exe' },
          { osType: 'Linux', path: '/a' },
          { path: '/b' },
        ],
      }),
    ]);
    expect(planCollection([s], 'linux').processes.map((p) => p.path)).toEqual(['/a', '/b']);
    expect(planCollection([s], 'win32').processes.map((p) => p.path)).toEqual(['/b', 'C:\\a.exe']);
  });
});

describe('prompt wording', () => {
  it('gives the countdown and the number of services', () => {
    const text = describeTotpPrompt(
      {
        reason: 'unlock',
        services: [
          { id: '1', name: 'a' },
          { id: '2', name: 'b' },
          { id: '3', name: 'c' },
        ],
        deadline: 272_000,
        attempt: 1,
        acceptsRecoveryCode: true,
      },
      0,
    );
    expect(text).toBe('Your device was unlocked. Enter your code within 4:32 to keep access to 3 services.');
    expect(formatCountdown(3_725_000)).toBe('1:02:05');
    expect(formatCountdown(-5)).toBe('0:00');
  });
});
