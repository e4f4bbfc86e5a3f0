import { describe, expect, it } from 'vitest';
import { processMultiCheck } from '../../../controller/posture/checks/process-multi-check.js';
import { HASH_A, HASH_B, SIGNER, checkFrom, ctx, data, proc, slot } from './fixtures.js';

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

describe('PROCESS_MULTI check: only the rules for the device OS count (Postern)', () => {
  const mixed = [
    { os: 'Windows', path: 'C:\\edr\\agent.exe' },
    { os: 'Linux', path: '/opt/edr/agent' },
    { os: 'macOS', path: '/Applications/EDR.app/Contents/MacOS/edr' },
  ];
  const allOf = checkFrom('PROCESS_MULTI', { semantic: 'AllOf', processes: mixed });
  const anyOf = checkFrom('PROCESS_MULTI', { semantic: 'AnyOf', processes: mixed });
  const os = (type: string) => ({ ...slot, type, version: '1.0.0', build: null });

  it('AllOf passes when every rule for the reported OS passes, skipping the others', () => {
    const linux = data({ os: os('Linux'), processes: [proc('/opt/edr/agent')] });
    expect(processMultiCheck.evaluate(allOf, linux, ctx()).isPassing).toBe(true);
    const stopped = data({ os: os('Linux'), processes: [proc('/opt/edr/agent', { isRunning: false })] });
    const result = processMultiCheck.evaluate(allOf, stopped, ctx());
    expect(result.isPassing).toBe(false);
    expect(result.actualValue).toHaveLength(1);
  });

  it('AnyOf passes when an applicable rule passes, and a rule of another OS does not count', () => {
    const windowsBinaryOnLinux = data({ os: os('Linux'), processes: [proc('C:\\edr\\agent.exe')] });
    expect(processMultiCheck.evaluate(anyOf, windowsBinaryOnLinux, ctx()).isPassing).toBe(false);
    const server = data({ os: os('WindowsServer'), processes: [proc('c:\\EDR\\agent.exe')] });
    expect(processMultiCheck.evaluate(anyOf, server, ctx()).isPassing).toBe(true);
  });

  it('fails saying so when no rule is for the reported OS', () => {
    const linuxOnly = checkFrom('PROCESS_MULTI', { semantic: 'AllOf', processes: [mixed[1]] });
    const result = processMultiCheck.evaluate(linuxOnly, data({ os: os('Android') }), ctx());
    expect(result).toMatchObject({ isPassing: false, reason: 'no process rule for Android' });
    expect(processMultiCheck.evaluate(anyOf, data({ os: os('FreeBSD') }), ctx()).reason).toBe(
      'no process rule for FreeBSD',
    );
  });

  it('applies every rule while the device has not reported its OS', () => {
    const reported = data({ processes: [proc('/opt/edr/agent')] });
    expect(processMultiCheck.evaluate(anyOf, reported, ctx()).isPassing).toBe(true);
    expect(processMultiCheck.evaluate(allOf, reported, ctx()).isPassing).toBe(false);
  });
});
