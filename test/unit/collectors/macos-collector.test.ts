import { describe, expect, it } from 'vitest';
import { HashCache } from '../../../src/agent/collectors/hash-cache.js';
import { MacosCollector, padVersion, parseSwVers } from '../../../src/agent/collectors/macos-collector.js';
import { fakeRunner, fixture } from './fake-runner.js';

const isSwVers = (call: { file: string }) => call.file === '/usr/bin/sw_vers';
const isPs = (call: { file: string; args: readonly string[] }) =>
  call.file === '/bin/ps' && call.args.join(' ') === '-axo comm=';

function collector(rules: Parameters<typeof fakeRunner>[0]) {
  const fake = fakeRunner(rules);
  const hashCache = new HashCache({
    readIdentity: async (path) => {
      if (!path.startsWith('/Applications/')) throw new Error('ENOENT');
      return 'id';
    },
    hashFile: async (path) => `sha-of-${path}`,
  });
  return { instance: new MacosCollector({ run: fake.run, hashCache }), calls: fake.calls };
}

describe('MacosCollector', () => {
  it('pads a two-part product version to three parts and sends the build version', async () => {
    const { instance } = collector([[isSwVers, fixture('macos-sw_vers.txt')]]);
    expect(await instance.collectOs('os')).toEqual({
      id: 'os',
      typeId: 'OS',
      type: 'macOS',
      version: '14.5.0',
      build: '23F79',
    });
  });

  it('keeps a three-part product version as it is', async () => {
    const { instance } = collector([[isSwVers, fixture('macos-sw_vers-three-part.txt')]]);
    expect(await instance.collectOs('os')).toMatchObject({ version: '15.0.1', build: '24A348' });
  });

  it('rejects when sw_vers prints no version', async () => {
    expect(() => parseSwVers('ProductName: macOS\n')).toThrow(/no ProductVersion/);
    expect(padVersion('15')).toBe('15.0.0');
  });

  it('finds running executables by full path, case-insensitively, including paths with spaces', async () => {
    const { instance, calls } = collector([[isPs, fixture('macos-ps-comm.txt')]]);
    const answers = await instance.collectProcesses([
      { id: 'a', path: '/Applications/Postern.app/Contents/MacOS/Postern' },
      { id: 'b', path: '/applications/google chrome.app/contents/macos/google chrome' },
      { id: 'c', path: '/Applications/Missing.app/Contents/MacOS/Missing' },
      { id: 'd', path: '/usr/bin/zsh' },
    ]);
    expect(answers).toEqual([
      {
        id: 'a',
        typeId: 'PROCESS',
        path: '/Applications/Postern.app/Contents/MacOS/Postern',
        isRunning: true,
        hash: 'sha-of-/Applications/Postern.app/Contents/MacOS/Postern',
        signerFingerprints: [],
      },
      {
        id: 'b',
        typeId: 'PROCESS',
        path: '/applications/google chrome.app/contents/macos/google chrome',
        isRunning: true,
        hash: '',
        signerFingerprints: [],
      },
      {
        id: 'c',
        typeId: 'PROCESS',
        path: '/Applications/Missing.app/Contents/MacOS/Missing',
        isRunning: false,
        // Not running and not an executable file here: never read for the controller.
        hash: '',
        signerFingerprints: [],
      },
      {
        id: 'd',
        typeId: 'PROCESS',
        path: '/usr/bin/zsh',
        isRunning: false,
        hash: '',
        signerFingerprints: [],
      },
    ]);
    expect(calls).toHaveLength(1);
  });

  it('rejects when ps fails', async () => {
    const { instance } = collector([[isPs, { stdout: '', stderr: 'ps: not permitted', code: 1 }]]);
    await expect(instance.collectProcesses([{ id: 'a', path: '/x' }])).rejects.toThrow(
      /\/bin\/ps exited with 1/,
    );
  });

  it('reports an empty domain without running anything', async () => {
    const { instance, calls } = collector([]);
    expect(await instance.collectDomain('d')).toEqual({ id: 'd', typeId: 'DOMAIN', domain: '' });
    expect(calls).toHaveLength(0);
  });
});
