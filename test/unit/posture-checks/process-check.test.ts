import { describe, expect, it } from 'vitest';
import { processCheck } from '../../../controller/posture/checks/process-check.js';
import { HASH_A, HASH_B, SIGNER, at, checkFrom, ctx, data, proc, slot } from './fixtures.js';

describe('PROCESS check: parse', () => {
  it('accepts os as an alias of osType, normalises case and keeps one signer', () => {
    const result = processCheck.parse(
      {
        process: {
          os: 'WINDOWS',
          path: 'C:\\Program Files\\Agent\\agent.exe',
          hashes: [HASH_A.toUpperCase()],
          signerFingerprint: SIGNER.toUpperCase(),
        },
      },
      'create',
    );
    expect(result).toEqual({
      ok: true,
      spec: {
        typeId: 'PROCESS',
        process: {
          osType: 'Windows',
          path: 'C:\\Program Files\\Agent\\agent.exe',
          hashes: [HASH_A],
          signerFingerprints: [SIGNER],
        },
      },
    });
  });

  it('names each problem', () => {
    const result = processCheck.parse(
      {
        process: { osType: 'Plan9', path: 'relative/bin', hashes: ['abc', HASH_A], signerFingerprint: 'xyz' },
      },
      'create',
    );
    expect(result.ok || result.problems.map((p) => p.field)).toEqual([
      'process.osType',
      'process.path',
      'process.hashes[0]',
      'process.signerFingerprint',
    ]);
    const linuxWithWindowsPath = processCheck.parse(
      { process: { osType: 'Linux', path: 'C:\\x.exe' } },
      'create',
    );
    expect(linuxWithWindowsPath.ok || linuxWithWindowsPath.problems.map((p) => p.field)).toEqual([
      'process.path',
    ]);
    expect(processCheck.parse({ process: null }, 'create').ok).toBe(false);
    expect(processCheck.parse({}, 'update').ok).toBe(false);
  });

  it('answers the OpenZiti process object and query fields', () => {
    const check = checkFrom('PROCESS', { process: { osType: 'Linux', path: '/usr/bin/falcon' } });
    expect(processCheck.toWire(check)).toEqual({
      process: { osType: 'Linux', path: '/usr/bin/falcon', hashes: [] },
    });
    expect(processCheck.queryFields(check)).toEqual({
      process: { osType: 'Linux', path: '/usr/bin/falcon' },
    });
    expect(processCheck.timeoutSeconds(check)).toBe(-1);
  });
});

describe('PROCESS check: evaluate', () => {
  const linux = checkFrom('PROCESS', {
    process: { osType: 'Linux', path: '/usr/bin/falcon', hashes: [HASH_A], signerFingerprint: SIGNER },
  });

  it('passes a running binary with an allowed hash and signer, found by path', () => {
    const result = processCheck.evaluate(
      linux,
      data({ processes: [proc('/usr/bin/other'), proc('/usr/bin/falcon')] }),
      ctx(),
    );
    expect(result.isPassing).toBe(true);
  });

  it('fails a wrong hash, a wrong signer, a stopped or a missing process, with reasons', () => {
    const wrongHash = processCheck.evaluate(
      linux,
      data({ processes: [proc('/usr/bin/falcon', { hash: HASH_B })] }),
      ctx(),
    );
    expect(wrongHash.isPassing).toBe(false);
    expect(wrongHash.reason).toContain('unapproved binary');
    const wrongSigner = processCheck.evaluate(
      linux,
      data({ processes: [proc('/usr/bin/falcon', { signerFingerprints: ['d'.repeat(40)] })] }),
      ctx(),
    );
    expect(wrongSigner.reason).toBe('process /usr/bin/falcon is not signed by an approved certificate');
    const stopped = processCheck.evaluate(
      linux,
      data({ processes: [proc('/usr/bin/falcon', { isRunning: false })] }),
      ctx(),
    );
    expect(stopped.reason).toBe('process /usr/bin/falcon is not running');
    const missing = processCheck.evaluate(linux, null, ctx());
    expect(missing).toMatchObject({
      isPassing: false,
      actualValue: { isRunning: false, hash: '', signerFingerprints: [], path: '/usr/bin/falcon' },
      expectedValue: {
        osType: 'Linux',
        path: '/usr/bin/falcon',
        hashes: [HASH_A],
        signerFingerprint: SIGNER,
      },
    });
  });

  it('matches Linux paths case-sensitively and Windows paths case-insensitively', () => {
    expect(
      processCheck.evaluate(linux, data({ processes: [proc('/usr/bin/Falcon')] }), ctx()).isPassing,
    ).toBe(false);
    const windows = checkFrom('PROCESS', {
      process: { osType: 'Windows', path: 'C:\\Program Files\\Falcon\\falcon.exe' },
    });
    const reported = data({ processes: [proc('c:\\program files\\FALCON\\Falcon.EXE')] });
    expect(processCheck.evaluate(windows, reported, ctx()).isPassing).toBe(true);
  });

  it('uses the latest report when Windows reports differ only in case', () => {
    const windows = checkFrom('PROCESS', { process: { osType: 'WindowsServer', path: 'C:\\a.exe' } });
    const reports = [
      proc('C:\\A.EXE', { isRunning: true, lastUpdatedAt: at(-60) }),
      proc('c:\\a.exe', { isRunning: false, lastUpdatedAt: at(-1) }),
    ];
    expect(processCheck.evaluate(windows, data({ processes: reports }), ctx()).isPassing).toBe(false);
  });

  it('compares reported hash case and separators away', () => {
    const result = processCheck.evaluate(
      linux,
      data({ processes: [proc('/usr/bin/falcon', { hash: HASH_A.toUpperCase() })] }),
      ctx(),
    );
    expect(result.isPassing).toBe(true);
  });
});

describe('PROCESS check: a rule applies only to devices of its OS family (Postern)', () => {
  const linux = checkFrom('PROCESS', { process: { osType: 'Linux', path: '/usr/bin/falcon' } });
  const windows = checkFrom('PROCESS', { process: { osType: 'WindowsServer', path: 'C:\\edr.exe' } });
  const os = (type: string) => ({ ...slot, type, version: '1.0.0', build: null });

  it('fails on a device of another OS even when the binary is reported running', () => {
    const result = processCheck.evaluate(
      linux,
      data({ os: os('windows'), processes: [proc('/usr/bin/falcon')] }),
      ctx(),
    );
    expect(result).toMatchObject({ isPassing: false, reason: 'no process rule for windows' });
  });

  it('applies on a device of the same family, Windows and Windows Server being one', () => {
    const reported = data({ os: os('Windows'), processes: [proc('c:\\EDR.exe')] });
    expect(processCheck.evaluate(windows, reported, ctx()).isPassing).toBe(true);
    const onLinux = data({ os: os('LINUX'), processes: [proc('/usr/bin/falcon')] });
    expect(processCheck.evaluate(linux, onLinux, ctx()).isPassing).toBe(true);
  });

  it('applies every rule while the device has not reported its OS', () => {
    expect(
      processCheck.evaluate(linux, data({ processes: [proc('/usr/bin/falcon')] }), ctx()).isPassing,
    ).toBe(true);
  });
});
