import { describe, expect, it } from 'vitest';
import { binaryName, explainQuery, explainReason } from '../../../src/api/explain-failure.js';
import type { PostureFailureReason } from '../../../src/api/posture-reasons.js';
import {
  describeTotpPrompt,
  formatCountdown,
  promptTitle,
  servicesPhrase,
} from '../../../src/api/prompts.js';
import { checkInWords, describeServiceAccess, describeServices } from '../../../src/api/service-access.js';
import { planCollection } from '../../../src/agent/posture/query-plan.js';
import { query, service } from './fakes.js';

describe('explainReason', () => {
  const says = (reason: PostureFailureReason, ctx = {}) => explainReason(reason, ctx);

  it('tells a Linux user that a Windows-only check needs another device, not a Linux update', () => {
    expect(
      says({
        code: 'OS_TYPE_NOT_ALLOWED',
        osType: 'Linux',
        allowed: [{ type: 'Windows', versions: ['>=10.0.19041'] }],
      }),
    ).toBe('This service needs Windows 10.0.19041 or later; this device runs Linux');
    expect(
      says({
        code: 'OS_TYPE_NOT_ALLOWED',
        osType: 'Linux',
        allowed: [
          { type: 'Windows', versions: [] },
          { type: 'macOS', versions: [] },
        ],
      }),
    ).toBe('This service needs Windows or macOS; this device runs Linux');
  });

  it('gives the required version range and the current one', () => {
    const allowed = [{ type: 'Linux', versions: ['>=6.8.0'] }];
    expect(says({ code: 'OS_VERSION_OUT_OF_RANGE', osType: 'Linux', osVersion: '5.15.0', allowed })).toBe(
      'Update Linux to 6.8 or later (this device runs 5.15.0)',
    );
    expect(
      says({
        code: 'OS_VERSION_OUT_OF_RANGE',
        osType: 'macOS',
        osVersion: '15.1.0',
        allowed: [{ type: 'macOS', versions: ['<15.0.0'] }],
      }),
    ).toBe('Use a macOS version older than 15.0 (this device runs 15.1.0)');
  });

  it('tells a running but unapproved binary apart from a stopped one', () => {
    expect(says({ code: 'PROCESS_NOT_RUNNING', path: '/opt/edr/agent' })).toBe(
      'Start agent (/opt/edr/agent)',
    );
    expect(says({ code: 'PROCESS_HASH_NOT_APPROVED', path: '/usr/bin/tmux' })).toBe(
      'tmux is running but is not an approved build: install the approved version at /usr/bin/tmux',
    );
    expect(says({ code: 'PROCESS_SIGNER_NOT_APPROVED', path: 'C:\\EDR\\edr.exe' })).toMatch(
      /^edr\.exe is running but is not signed by an approved publisher/,
    );
  });

  it('reads AnyOf as one of, AllOf as each', () => {
    const processes = [
      { code: 'PROCESS_NOT_RUNNING' as const, path: '/a/x' },
      { code: 'PROCESS_HASH_NOT_APPROVED' as const, path: '/b/y' },
    ];
    expect(says({ code: 'PROCESS_NOT_RUNNING', semantic: 'AnyOf', processes })).toBe(
      'Any one of these: Start x (/a/x); or y is running but is not an approved build: install the approved version at /b/y',
    );
    expect(says({ code: 'PROCESS_NOT_RUNNING', semantic: 'AllOf', processes })).toBe(
      'Start x (/a/x); y is running but is not an approved build: install the approved version at /b/y',
    );
  });

  it("says to join the organisation's domain (the controller does not name it), never the MAC addresses", () => {
    expect(says({ code: 'DOMAIN_MISMATCH', domain: '' })).toBe("Join your organisation's Windows domain");
    expect(says({ code: 'DOMAIN_MISMATCH', domain: 'HOME' })).toBe(
      "Join your organisation's Windows domain (this device is in HOME)",
    );
    expect(says({ code: 'MAC_NOT_ALLOWED' })).toBe('Connect from an allowed network adapter');
  });

  it('says why a code is needed', () => {
    expect(says({ code: 'MFA_REQUIRED' })).toBe('Enter your authenticator code');
    expect(says({ code: 'MFA_REQUIRED' }, { mfaEnrolled: false })).toBe(
      'Set up an authenticator app (MFA) for your account',
    );
    expect(says({ code: 'MFA_TIMED_OUT', timeoutSeconds: 3600 })).toBe(
      'Your last authenticator code is more than 1 hour old: enter a new one',
    );
    expect(says({ code: 'MFA_NEEDED_AFTER_WAKE', secondsLeft: 0 })).toBe(
      'This device woke from sleep: enter your authenticator code',
    );
    expect(says({ code: 'MFA_NEEDED_AFTER_UNLOCK', secondsLeft: 245 })).toBe(
      'This device was unlocked: enter your authenticator code within 4:05',
    );
  });

  it('waits for data it has not sent instead of inventing a cause', () => {
    expect(says({ code: 'NO_DATA_YET', missing: 'OS' })).toBe(
      'Waiting for this device to report its operating system',
    );
  });

  it('still advises without a reason from the controller', () => {
    expect(explainQuery(query('MAC'))).toBe('Connect from an allowed network adapter');
    expect(explainQuery({ ...query('PROCESS'), process: { osType: 'Linux', path: '/opt/x' } })).toBe(
      'Make sure x (/opt/x) runs in an approved build',
    );
  });

  it("words Postern's types from their descriptors, with the facts the reason carries", () => {
    expect(says({ code: 'NO_DATA_YET', missing: 'FIREWALL' })).toBe(
      'Waiting for this device to report whether its firewall is on',
    );
    expect(says({ code: 'FIREWALL_OFF' })).toBe('The firewall is off: turn it on in the system settings');
    expect(says({ code: 'DISK_NOT_ENCRYPTED' })).toMatch(/^The system disk is not encrypted: turn on/);
    expect(says({ code: 'SCREEN_LOCK_TOO_LATE', idleMinutes: 30, maxIdleMinutes: 10 })).toBe(
      'The screen locks too late: set it to lock after at most 10 idle minutes (now 30)',
    );
    expect(says({ code: 'AGENT_VERSION_OUT_OF_RANGE', agentVersion: '1.3.0', versions: '>=1.4.0 <2' })).toBe(
      'Update Postern to 1.4 or later, older than 2 (this device runs 1.3.0)',
    );
    // An unknown fact says so, with the agent's own words, never that it passes.
    expect(says({ code: 'FIREWALL_UNKNOWN', unknownReason: 'nft needs the service' })).toMatch(
      /^Postern could not tell whether the firewall is on.*\(nft needs the service\)$/,
    );
    expect(explainQuery(query('SCREEN_LOCK'))).toBe(
      'Make sure the screen locks after at most maxIdleMinutes minutes of idle',
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
    const reason = { code: 'PROCESS_NOT_RUNNING' as const, path: '/opt/db' };
    const s = service('db', [query('PROCESS', { process: { path: '/opt/db' }, reason })]);
    s.postureQueries.push({ policyId: 'bind', policyType: 'Bind', isPassing: true, postureQueries: [] });
    expect(describeServiceAccess(s)).toMatchObject({
      access: 'blocked',
      failing: [{ code: 'PROCESS_NOT_RUNNING', explanation: 'Start db (/opt/db)' }],
    });
  });

  it('reads "checking" before the first report of a running agent, never a failure', () => {
    const s = service('db', [query('OS', { reason: { code: 'NO_DATA_YET', missing: 'OS' } })]);
    expect(describeServiceAccess(s, { reported: false })).toMatchObject({ access: 'checking', failing: [] });
    expect(describeServiceAccess(s, { reported: true })).toMatchObject({
      access: 'checking',
      failing: [{ explanation: 'Waiting for this device to report its operating system' }],
    });
    const known = service('db', [query('OS', { reason: { code: 'OS_TYPE_NOT_ALLOWED', osType: 'Linux' } })]);
    expect(describeServiceAccess(known, { reported: true }).access).toBe('blocked');
    const mfa = service('git', [query('MFA', { reason: { code: 'MFA_REQUIRED' } })]);
    expect(describeServiceAccess(mfa, { reported: false }).access).toBe('mfa-needed');
  });

  it('names every type as a user names the check, from the descriptors', () => {
    expect(checkInWords('MAC')).toBe('network adapter check');
    expect(checkInWords('DISK_ENCRYPTION')).toBe('disk encryption check');
    expect(checkInWords('AGENT_VERSION')).toBe('Postern version check');
    expect(checkInWords('SOMETHING_NEW')).toBe('SOMETHING_NEW check');
  });

  it("carries the administrator's remediation text as written", () => {
    const remediation = 'Install the sensor from https://it.example/sensor';
    const s = service('db', [query('MAC', { reason: { code: 'MAC_NOT_ALLOWED' }, remediation })]);
    expect(describeServiceAccess(s).failing).toEqual([expect.objectContaining({ remediation })]);
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
  const unlock = (names: string[], deadline: number | null = 272_000) => ({
    reason: 'unlock' as const,
    services: names.map((name) => ({ name })),
    deadline,
  });

  it('says why the code is asked for, which services need it, and how long is left', () => {
    expect(describeTotpPrompt(unlock(['wiki', 'git', 'crm']), 0)).toBe(
      'This device was unlocked. Enter your code within 4:32 to keep access to wiki, git and crm.',
    );
    expect(describeTotpPrompt({ ...unlock(['wiki']), reason: 'wake' }, 0)).toBe(
      'This device woke from sleep. Enter your code within 4:32 to keep access to wiki.',
    );
    expect(describeTotpPrompt({ ...unlock(['wiki', 'git']), reason: 'timeout' }, 300_000)).toBe(
      'Your last authenticator code has expired. Enter your code to restore access to wiki and git.',
    );
    expect(describeTotpPrompt({ ...unlock(['wiki']), reason: 'timeout' }, 0)).toMatch(
      /^Your last authenticator code is about to expire\./,
    );
    expect(describeTotpPrompt({ reason: 'login', services: [] }, 0)).toBe(
      'Your account needs an authenticator code to finish signing in.',
    );
  });

  it('titles a timeout prompt "has expired" once the deadline passed and "about to expire" before', () => {
    const timeout = { ...unlock(['wiki']), reason: 'timeout' as const };
    expect(promptTitle(timeout, 0)).toBe('Your authenticator code is about to expire');
    expect(promptTitle(timeout, 300_000)).toBe('Your authenticator code has expired');
    // A prompt without a deadline has not passed one.
    expect(promptTitle({ reason: 'timeout', deadline: null }, 300_000)).toBe(
      'Your authenticator code is about to expire',
    );
  });

  it('names up to three services and counts the rest', () => {
    expect(servicesPhrase([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }, { name: 'e' }])).toBe(
      'a, b and 3 more services',
    );
    expect(formatCountdown(3_725_000)).toBe('1:02:05');
    expect(formatCountdown(-5)).toBe('0:00');
  });
});
