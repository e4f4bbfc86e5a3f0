/**
 * The four Postern types' evaluation at its edges (maxIdleMinutes boundaries, null facts, semver range edges,
 * allVolumes) and their validation from the descriptors' schemas, each problem naming its field.
 */
import { describe, expect, it } from 'vitest';
import { getCheckModule, evaluateCheck } from '../../../controller/posture/checks/index.js';
import type { ReportedFactData } from '../../../controller/posture-model.js';
import { checkFrom, ctx, data, session, slot } from './fixtures.js';

const withFact = (typeId: string, value: Record<string, unknown>) =>
  data({ facts: { [typeId]: { ...slot, value } as ReportedFactData } });

const codeOf = (check: Parameters<typeof evaluateCheck>[0], d: Parameters<typeof evaluateCheck>[1]) => {
  const result = evaluateCheck(check, d, ctx());
  return result.isPassing ? null : result.failure?.code;
};

describe('SCREEN_LOCK', () => {
  const check = checkFrom('SCREEN_LOCK', { maxIdleMinutes: 10 });
  const lock = (lockEnabled: unknown, idleMinutes: unknown) =>
    codeOf(check, withFact('SCREEN_LOCK', { lockEnabled, idleMinutes }));

  it('passes up to and at maxIdleMinutes, fails one past it', () => {
    expect(lock(true, 0)).toBeNull();
    expect(lock(true, 9.5)).toBeNull();
    expect(lock(true, 10)).toBeNull();
    expect(lock(true, 10.01)).toBe('SCREEN_LOCK_TOO_LATE');
    expect(lock(true, 11)).toBe('SCREEN_LOCK_TOO_LATE');
    const late = evaluateCheck(check, withFact('SCREEN_LOCK', { lockEnabled: true, idleMinutes: 30 }), ctx());
    expect(late.failure).toEqual({ code: 'SCREEN_LOCK_TOO_LATE', idleMinutes: 30, maxIdleMinutes: 10 });
  });

  it('fails when the lock is off, whatever the delay, and when either value is unknown', () => {
    expect(lock(false, 1)).toBe('SCREEN_LOCK_OFF');
    expect(lock(false, null)).toBe('SCREEN_LOCK_OFF');
    expect(lock(null, 5)).toBe('SCREEN_LOCK_UNKNOWN');
    expect(lock(true, null)).toBe('SCREEN_LOCK_UNKNOWN');
    // Junk that slipped into storage is unknown, never passing.
    expect(lock('yes', 5)).toBe('SCREEN_LOCK_UNKNOWN');
    expect(lock(true, -3)).toBe('SCREEN_LOCK_UNKNOWN');
  });

  it('waits for data before the first report', () => {
    expect(evaluateCheck(check, data(), ctx()).failure).toEqual({
      code: 'NO_DATA_YET',
      missing: 'SCREEN_LOCK',
    });
    expect(evaluateCheck(check, null, ctx()).failure?.code).toBe('NO_DATA_YET');
  });

  it('validates maxIdleMinutes from the descriptor: an integer from 1 to 1440, required', () => {
    const module = getCheckModule('SCREEN_LOCK');
    for (const ok of [1, 1440]) expect(module.parse({ maxIdleMinutes: ok }, 'create').ok).toBe(true);
    for (const bad of [0, 1441, 2.5, '10', true, [], {}]) {
      const parsed = module.parse({ maxIdleMinutes: bad }, 'create');
      expect(parsed, JSON.stringify(bad)).toMatchObject({
        ok: false,
        problems: [{ field: 'maxIdleMinutes', reason: 'must be an integer from 1 to 1440' }],
      });
    }
    expect(module.parse({}, 'create')).toMatchObject({
      ok: false,
      problems: [{ field: 'maxIdleMinutes', reason: 'is required' }],
    });
    // A patch leaving it out keeps the stored value.
    expect(module.parse({}, 'patch', { typeId: 'SCREEN_LOCK', options: { maxIdleMinutes: 7 } })).toEqual({
      ok: true,
      spec: { typeId: 'SCREEN_LOCK', options: { maxIdleMinutes: 7 } },
    });
  });
});

describe('DISK_ENCRYPTION', () => {
  const system = checkFrom('DISK_ENCRYPTION', {});
  const every = checkFrom('DISK_ENCRYPTION', { allVolumes: true });
  const disk = (check: typeof system, value: Record<string, unknown>) =>
    codeOf(check, withFact('DISK_ENCRYPTION', value));

  it('defaults allVolumes to false', () => {
    expect(system.options).toEqual({ allVolumes: false });
    expect(checkFrom('DISK_ENCRYPTION', { allVolumes: null }).options).toEqual({ allVolumes: false });
  });

  it('without allVolumes reads only the system volume', () => {
    expect(disk(system, { encrypted: true })).toBeNull();
    expect(disk(system, { encrypted: true, allVolumesEncrypted: false })).toBeNull();
    expect(disk(system, { encrypted: false })).toBe('DISK_NOT_ENCRYPTED');
    expect(disk(system, { encrypted: null })).toBe('DISK_ENCRYPTION_UNKNOWN');
  });

  it('with allVolumes needs every fixed volume, and an unknown one is unknown', () => {
    expect(disk(every, { encrypted: true, allVolumesEncrypted: true })).toBeNull();
    expect(disk(every, { encrypted: true, allVolumesEncrypted: false })).toBe('DISK_VOLUMES_NOT_ENCRYPTED');
    expect(disk(every, { encrypted: true, allVolumesEncrypted: null })).toBe('DISK_ENCRYPTION_UNKNOWN');
    expect(disk(every, { encrypted: true })).toBe('DISK_ENCRYPTION_UNKNOWN');
    // The known failure the user can fix is said before an unknown.
    expect(disk(every, { encrypted: false, allVolumesEncrypted: null })).toBe('DISK_NOT_ENCRYPTED');
    expect(disk(every, { encrypted: null, allVolumesEncrypted: false })).toBe('DISK_VOLUMES_NOT_ENCRYPTED');
  });

  it('carries the agent’s words for an unknown fact', () => {
    const result = evaluateCheck(
      system,
      withFact('DISK_ENCRYPTION', { encrypted: null, unknownReason: ' fdesetup is missing ' }),
      ctx(),
    );
    expect(result.failure).toEqual({ code: 'DISK_ENCRYPTION_UNKNOWN', unknownReason: 'fdesetup is missing' });
    expect(result.reason).toContain('fdesetup is missing');
  });
});

describe('FIREWALL', () => {
  const check = checkFrom('FIREWALL', {});
  it('passes only when enabled is true', () => {
    expect(codeOf(check, withFact('FIREWALL', { enabled: true }))).toBeNull();
    expect(codeOf(check, withFact('FIREWALL', { enabled: false }))).toBe('FIREWALL_OFF');
    expect(codeOf(check, withFact('FIREWALL', { enabled: null }))).toBe('FIREWALL_UNKNOWN');
    expect(codeOf(check, withFact('FIREWALL', {}))).toBe('FIREWALL_UNKNOWN');
    expect(codeOf(check, data())).toBe('NO_DATA_YET');
  });
  it('does not take another type’s fact', () => {
    expect(codeOf(check, withFact('DISK_ENCRYPTION', { enabled: true }))).toBe('NO_DATA_YET');
  });
});

describe('AGENT_VERSION', () => {
  const check = checkFrom('AGENT_VERSION', { versions: ' >=1.4.0 <2 ' });
  const signedIn = (version: string | undefined) =>
    codeOf(
      check,
      data({
        apiSessions: session({
          sdkInfo: version === undefined ? { type: 'postern' } : { type: 'postern', version },
        }),
      }),
    );

  it('stores the range trimmed and refuses what OpenZiti would refuse, naming versions', () => {
    expect(check.options).toEqual({ versions: '>=1.4.0 <2' });
    const module = getCheckModule('AGENT_VERSION');
    for (const bad of ['^1.4.0', '~1.4', '1.0.0 - 2.0.0', '', '>=one']) {
      const parsed = module.parse({ versions: bad }, 'create');
      expect(parsed.ok, bad).toBe(false);
      if (!parsed.ok) expect(parsed.problems[0]!.field).toBe('versions');
    }
    expect(module.parse({ versions: 'x'.repeat(256) }, 'create')).toMatchObject({
      ok: false,
      problems: [{ field: 'versions' }],
    });
  });

  it('matches the range at its edges', () => {
    expect(signedIn('1.4.0')).toBeNull();
    expect(signedIn('1.99.99')).toBeNull();
    expect(signedIn('v1.5.2')).toBeNull();
    expect(signedIn('1.3.99')).toBe('AGENT_VERSION_OUT_OF_RANGE');
    expect(signedIn('2.0.0')).toBe('AGENT_VERSION_OUT_OF_RANGE');
    // A prerelease is below its release (semver precedence), so it is below the floor.
    expect(signedIn('1.4.0-rc.1')).toBe('AGENT_VERSION_OUT_OF_RANGE');
    expect(signedIn('2.0.0-rc.1')).toBeNull();
  });

  it('fails as unknown without a version, and waits for the API session before it is known', () => {
    expect(signedIn(undefined)).toBe('AGENT_VERSION_UNKNOWN');
    expect(signedIn('')).toBe('AGENT_VERSION_UNKNOWN');
    expect(signedIn('dev build')).toBe('AGENT_VERSION_UNKNOWN');
    expect(codeOf(check, data({ apiSessions: session({ sdkInfo: null }) }))).toBe('AGENT_VERSION_UNKNOWN');
    expect(codeOf(check, data())).toBe('NO_DATA_YET');
    const out = evaluateCheck(
      check,
      data({ apiSessions: session({ sdkInfo: { version: '1.0.0' } }) }),
      ctx(),
    );
    expect(out.failure).toEqual({
      code: 'AGENT_VERSION_OUT_OF_RANGE',
      agentVersion: '1.0.0',
      versions: '>=1.4.0 <2',
    });
  });
});
