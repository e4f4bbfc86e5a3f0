import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkModules,
  evaluateCheck,
  getCheckModule,
  isPostureCheckType,
} from '../../../controller/posture/checks/index.js';
import { POSTURE_CHECK_TYPES, type PostureCheckType } from '../../../controller/posture-model.js';
import { checkFrom, ctx } from './fixtures.js';

/** The fields each type reads, and a valid body to mutate. */
const FIELDS: Record<PostureCheckType, { keys: string[]; valid: Record<string, unknown> }> = {
  OS: { keys: ['operatingSystems'], valid: { operatingSystems: [{ type: 'Linux', versions: ['>=1.0.0'] }] } },
  MAC: { keys: ['macAddresses'], valid: { macAddresses: ['AA-BB-CC-DD-EE-FF'] } },
  DOMAIN: { keys: ['domains', 'macAddresses'], valid: { domains: ['corp'] } },
  PROCESS: { keys: ['process'], valid: { process: { osType: 'Linux', path: '/bin/x' } } },
  PROCESS_MULTI: {
    keys: ['semantic', 'processes'],
    valid: { semantic: 'AllOf', processes: [{ os: 'Linux', path: '/bin/x' }] },
  },
  MFA: {
    keys: ['timeoutSeconds', 'promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'],
    valid: { timeoutSeconds: 60 },
  },
  DISK_ENCRYPTION: { keys: ['allVolumes'], valid: { allVolumes: true } },
  FIREWALL: { keys: [], valid: {} },
  SCREEN_LOCK: { keys: ['maxIdleMinutes'], valid: { maxIdleMinutes: 10 } },
  AGENT_VERSION: { keys: ['versions'], valid: { versions: '>=1.4.0 <2' } },
};

describe('check registry', () => {
  it('has one module per type, each knowing its own typeId', () => {
    for (const type of POSTURE_CHECK_TYPES) {
      expect(checkModules[type].typeId).toBe(type);
      expect(getCheckModule(type)).toBe(checkModules[type]);
    }
    expect(getCheckModule('os')).toBeUndefined();
    expect(getCheckModule('constructor')).toBeUndefined();
    expect(isPostureCheckType('MFA')).toBe(true);
    expect(isPostureCheckType(7)).toBe(false);
  });

  it('dispatches evaluation on the check type', () => {
    const check = checkFrom('MFA', {});
    expect(evaluateCheck(check, null, ctx()).reason).toBe('no TOTP code entered in this session');
  });

  it('only MFA has a timeout; the others answer -1, no query fields of their own and no timer', () => {
    for (const type of [
      'OS',
      'MAC',
      'DOMAIN',
      'DISK_ENCRYPTION',
      'FIREWALL',
      'SCREEN_LOCK',
      'AGENT_VERSION',
    ] as const) {
      const check = checkFrom(type, FIELDS[type].valid);
      const mod = getCheckModule(type) as (typeof checkModules)[PostureCheckType];
      expect(mod.timeoutSeconds(check)).toBe(-1);
      expect(mod.timeoutRemaining(check, null, ctx())).toBe(-1);
      expect(mod.queryFields(check)).toEqual({});
      expect(mod.nextChangeAt(check, null, ctx())).toBeNull();
    }
  });

  it('validation is total: any JSON in any field gives a spec or named problems, never a throw', () => {
    const type = fc.constantFrom(...POSTURE_CHECK_TYPES);
    const mode = fc.constantFrom('create', 'update', 'patch') as fc.Arbitrary<'create' | 'update' | 'patch'>;
    fc.assert(
      fc.property(type, mode, fc.jsonValue(), fc.nat(), fc.boolean(), (t, m, junk, pick, nested) => {
        const { keys, valid } = FIELDS[t];
        const key = keys[pick % keys.length]!;
        const body: Record<string, unknown> = { ...valid };
        if (nested && Array.isArray(Object.values(valid)[0])) {
          body[Object.keys(valid)[0]!] = [junk, junk];
        } else {
          body[key] = junk;
        }
        const existing = checkModules[t].parse(valid, 'create');
        if (!existing.ok) throw new Error('fixture invalid');
        const result = checkModules[t].parse(body, m, m === 'patch' ? existing.spec : undefined);
        if (!result.ok) {
          expect(result.problems.length).toBeGreaterThan(0);
          for (const p of result.problems) expect(typeof p.field).toBe('string');
        } else {
          expect(result.spec.typeId).toBe(t);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
