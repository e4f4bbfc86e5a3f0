/**
 * The console's posture check form for the types built from their descriptors: the type list and names come
 * from the registry, a stored check fills the generated fields, and the body sends what the API takes (numbers
 * as numbers, a number typed wrong as typed so the API names the field).
 */
import { describe, expect, it } from 'vitest';
import {
  CHECK_TYPES,
  CHECK_TYPE_NAMES,
  CLAIMED_FIELDS,
  bodyOf,
  describedType,
  initialState,
} from '../../../console/src/pages/posture-checks/check-form-state.js';
import type { PostureCheck } from '../../../console/src/api/types.js';

const stored = (typeId: string, fields: Record<string, unknown>) =>
  ({ id: 'c1', name: 'c', typeId, roleAttributes: ['a'], ...fields }) as unknown as PostureCheck;

describe('posture check form from descriptors', () => {
  it('offers every registered type by its descriptor name, OpenZiti’s with their own forms', () => {
    expect(CHECK_TYPES).toContain('SCREEN_LOCK');
    expect(CHECK_TYPE_NAMES.DISK_ENCRYPTION).toBe('Disk encryption');
    expect(CHECK_TYPE_NAMES.MFA).toBe('MFA (authenticator code)');
    expect(describedType('OS')).toBeUndefined();
    expect(describedType('FIREWALL')?.id).toBe('FIREWALL');
    expect(CLAIMED_FIELDS).toEqual(expect.arrayContaining(['allVolumes', 'maxIdleMinutes', 'versions']));
  });

  it('fills the generated fields from a stored check, and starts a new one at the defaults', () => {
    expect(initialState(stored('SCREEN_LOCK', { maxIdleMinutes: 15 })).options.SCREEN_LOCK).toEqual({
      maxIdleMinutes: '15',
    });
    const fresh = initialState();
    expect(fresh.options.SCREEN_LOCK).toEqual({ maxIdleMinutes: '10' });
    expect(fresh.options.DISK_ENCRYPTION).toEqual({ allVolumes: false });
    expect(fresh.options.AGENT_VERSION).toEqual({ versions: '' });
  });

  it('sends each new type’s fields as the API takes them', () => {
    const state = { ...initialState(), name: ' n ', attributes: 'x' };
    const body = (typeId: (typeof CHECK_TYPES)[number], options: Record<string, string | boolean>) =>
      bodyOf({ ...state, typeId, options: { ...state.options, [typeId]: options } });
    expect(body('SCREEN_LOCK', { maxIdleMinutes: ' 5 ' })).toEqual({
      typeId: 'SCREEN_LOCK',
      name: 'n',
      roleAttributes: ['x'],
      remediation: null,
      maxIdleMinutes: 5,
    });
    expect(body('SCREEN_LOCK', { maxIdleMinutes: 'five' }).maxIdleMinutes).toBe('five');
    expect(body('SCREEN_LOCK', { maxIdleMinutes: '' }).maxIdleMinutes).toBeNull();
    expect(body('DISK_ENCRYPTION', { allVolumes: true }).allVolumes).toBe(true);
    expect(body('AGENT_VERSION', { versions: '>=1.4.0 <2' }).versions).toBe('>=1.4.0 <2');
    expect(Object.keys(body('FIREWALL', {}))).toEqual(['typeId', 'name', 'roleAttributes', 'remediation']);
  });

  it('sends a PROCESS check’s signer as OpenZiti’s one signerFingerprint, and reads it back', () => {
    const signer = 'a'.repeat(40);
    const state = initialState(
      stored('PROCESS', {
        process: { osType: 'Windows', path: 'C:\\sensor.exe', signerFingerprint: signer },
      }),
    );
    expect(state.process.signerFingerprints).toBe(signer);
    expect(bodyOf(state).process).toEqual({
      osType: 'Windows',
      path: 'C:\\sensor.exe',
      hashes: [],
      signerFingerprint: signer,
    });
    const none = initialState(stored('PROCESS', { process: { osType: 'Linux', path: '/usr/bin/x' } }));
    expect(bodyOf(none).process).toEqual({ osType: 'Linux', path: '/usr/bin/x', hashes: [] });
  });
});
