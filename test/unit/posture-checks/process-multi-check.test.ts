import { describe, expect, it } from 'vitest';
import { processMultiCheck } from '../../../controller/posture/checks/process-multi-check.js';
import { HASH_A, HASH_B, SIGNER, checkFrom, ctx, data, proc } from './fixtures.js';

const rules = [
  { os: 'LINUX', path: '/usr/bin/falcon', hashes: [HASH_A], signerFingerprints: [SIGNER] },
  { osType: 'linux', path: '/usr/sbin/auditd' },
];

describe('PROCESS_MULTI check: parse', () => {
  it('stores OneOf as AnyOf and accepts AllOf', () => {
    const oneOf = processMultiCheck.parse({ semantic: 'OneOf', processes: rules }, 'create');
    expect(oneOf.ok && oneOf.spec.semantic).toBe('AnyOf');
    const allOf = processMultiCheck.parse({ semantic: 'AllOf', processes: rules }, 'create');
    expect(allOf.ok && allOf.spec.processes).toEqual([
      { osType: 'Linux', path: '/usr/bin/falcon', hashes: [HASH_A], signerFingerprints: [SIGNER] },
      { osType: 'Linux', path: '/usr/sbin/auditd', hashes: [], signerFingerprints: [] },
    ]);
  });

  it('names problems down to hashes and signers', () => {
    const result = processMultiCheck.parse(
      {
        semantic: 'allof',
        processes: [
          rules[0],
          { os: 'Linux', path: '/bin/x', hashes: [HASH_A, 'nope'], signerFingerprints: [SIGNER, 3] },
          'x',
        ],
      },
      'create',
    );
    expect(result.ok || result.problems.map((p) => p.field)).toEqual([
      'semantic',
      'processes[1].hashes[1]',
      'processes[1].signerFingerprints[1]',
      'processes[2]',
    ]);
    expect(processMultiCheck.parse({ semantic: 'AllOf', processes: [] }, 'create').ok).toBe(false);
    expect(processMultiCheck.parse({ processes: rules }, 'update').ok).toBe(false);
  });

  it('patch merges over the existing check', () => {
    const existing = checkFrom('PROCESS_MULTI', { semantic: 'AllOf', processes: rules });
    const patched = processMultiCheck.parse({ semantic: 'OneOf' }, 'patch', existing);
    expect(patched).toEqual({
      ok: true,
      spec: { typeId: 'PROCESS_MULTI', semantic: 'AnyOf', processes: existing.processes },
    });
  });

  it('answers the wire form and query fields', () => {
    const check = checkFrom('PROCESS_MULTI', { semantic: 'OneOf', processes: [rules[1]] });
    expect(processMultiCheck.toWire(check)).toEqual({
      semantic: 'AnyOf',
      processes: [{ osType: 'Linux', path: '/usr/sbin/auditd', hashes: [], signerFingerprints: [] }],
    });
    expect(processMultiCheck.queryFields(check)).toEqual({
      processes: [{ osType: 'Linux', path: '/usr/sbin/auditd' }],
    });
  });
});

describe('PROCESS_MULTI check: evaluate', () => {
  const allOf = checkFrom('PROCESS_MULTI', { semantic: 'AllOf', processes: rules });
  const oneOf = checkFrom('PROCESS_MULTI', { semantic: 'OneOf', processes: rules });
  const both = data({
    processes: [proc('/usr/bin/falcon'), proc('/usr/sbin/auditd', { hash: HASH_B, signerFingerprints: [] })],
  });
  const wrongHash = data({
    processes: [proc('/usr/bin/falcon', { hash: HASH_B }), proc('/usr/sbin/auditd', { isRunning: false })],
  });
  const onlyFalcon = data({ processes: [proc('/usr/bin/falcon')] });

  it('AllOf needs every process to pass', () => {
    expect(processMultiCheck.evaluate(allOf, both, ctx()).isPassing).toBe(true);
    const result = processMultiCheck.evaluate(allOf, onlyFalcon, ctx());
    expect(result).toMatchObject({
      isPassing: false,
      actualValue: [{ isRunning: false, hash: '', signerFingerprints: [], path: '/usr/sbin/auditd' }],
      extra: { semantic: 'AllOf' },
    });
    expect(result.reason).toContain('/usr/sbin/auditd');
  });

  it('OneOf (AnyOf) needs one, and a wrong hash does not count', () => {
    expect(processMultiCheck.evaluate(oneOf, onlyFalcon, ctx()).isPassing).toBe(true);
    const result = processMultiCheck.evaluate(oneOf, wrongHash, ctx());
    expect(result.isPassing).toBe(false);
    expect(result.actualValue).toHaveLength(2);
    expect(result.expectedValue).toEqual(processMultiCheck.toWire(oneOf).processes);
    expect(result.extra).toEqual({ semantic: 'AnyOf' });
  });

  it('checks signers against the list when one is given', () => {
    const unsigned = data({ processes: [proc('/usr/bin/falcon', { signerFingerprints: ['e'.repeat(40)] })] });
    const signerOnly = checkFrom('PROCESS_MULTI', {
      semantic: 'AllOf',
      processes: [{ os: 'Linux', path: '/usr/bin/falcon', signerFingerprints: [SIGNER] }],
    });
    expect(processMultiCheck.evaluate(signerOnly, unsigned, ctx()).isPassing).toBe(false);
    expect(processMultiCheck.evaluate(signerOnly, onlyFalcon, ctx()).isPassing).toBe(true);
  });

  it('matches Windows paths ignoring case, Linux paths exactly', () => {
    const win = checkFrom('PROCESS_MULTI', {
      semantic: 'AllOf',
      processes: [{ os: 'WINDOWS', path: 'C:\\Tools\\EDR.exe' }],
    });
    expect(
      processMultiCheck.evaluate(win, data({ processes: [proc('c:\\tools\\edr.EXE')] }), ctx()).isPassing,
    ).toBe(true);
    const lin = checkFrom('PROCESS_MULTI', {
      semantic: 'AllOf',
      processes: [{ os: 'LINUX', path: '/opt/EDR' }],
    });
    expect(processMultiCheck.evaluate(lin, data({ processes: [proc('/opt/edr')] }), ctx()).isPassing).toBe(
      false,
    );
  });
});
