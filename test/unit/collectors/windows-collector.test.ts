import { describe, expect, it } from 'vitest';
import { HashCache } from '../../../src/agent/collectors/hash-cache.js';
import { WindowsCollector } from '../../../src/agent/collectors/windows-collector.js';
import { fakeRunner, fixture, scriptHas } from './fake-runner.js';

const POWERSHELL = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';

/** Hashes are computed by a fake so no Windows path has to exist; each file's hash is derived from its name. */
function fakeHashCache(unreadable: string[] = []): HashCache {
  return new HashCache({
    readIdentity: async (path) => {
      if (unreadable.includes(path)) throw new Error('EACCES');
      return 'id';
    },
    hashFile: async (path) => `hash-of-${path.toLowerCase()}`,
  });
}

function collector(
  rules: Parameters<typeof fakeRunner>[0],
  existing: string[] = [],
  unreadable: string[] = [],
) {
  const fake = fakeRunner(rules);
  const lowered = existing.map((p) => p.toLowerCase());
  const instance = new WindowsCollector({
    run: fake.run,
    powershell: POWERSHELL,
    hashCache: fakeHashCache(unreadable),
    networkInterfaces: () => ({
      Ethernet: [
        {
          address: '10.0.0.5',
          netmask: '255.0.0.0',
          family: 'IPv4',
          mac: '00-15-5D-AA-BB-01',
          internal: false,
          cidr: null,
        },
      ],
      'Loopback Pseudo-Interface 1': [
        {
          address: '127.0.0.1',
          netmask: '255.0.0.0',
          family: 'IPv4',
          mac: '00:00:00:00:00:00',
          internal: true,
          cidr: null,
        },
      ],
    }),
    fileExists: async (path) => lowered.includes(path.toLowerCase()),
  });
  return { instance, calls: fake.calls };
}

describe('WindowsCollector', () => {
  it('reports a workstation as Windows 10.0.<build> from Win32_OperatingSystem', async () => {
    const { instance, calls } = collector([
      [scriptHas('Win32_OperatingSystem'), fixture('windows-os-workstation.json')],
    ]);
    expect(await instance.collectOs('os-1')).toEqual({
      id: 'os-1',
      typeId: 'OS',
      type: 'Windows',
      version: '10.0.19045',
      build: '19045',
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.file).toBe(POWERSHELL);
    expect(calls[0]?.args.slice(0, 3)).toEqual(['-NoProfile', '-NonInteractive', '-EncodedCommand']);
  });

  it('reports a server product type as WindowsServer', async () => {
    const { instance } = collector([[scriptHas('Win32_OperatingSystem'), fixture('windows-os-server.json')]]);
    expect(await instance.collectOs('os-2')).toMatchObject({
      type: 'WindowsServer',
      version: '10.0.20348',
      build: '20348',
    });
  });

  it('rejects, naming PowerShell, when the OS command fails', async () => {
    const { instance } = collector([
      [scriptHas('Win32_OperatingSystem'), { stdout: '', stderr: 'Access denied', code: 1 }],
    ]);
    await expect(instance.collectOs('os-3')).rejects.toThrow(/powershell\.exe exited with 1: Access denied/);
  });

  it('reports the NetBIOS domain from NetGetJoinInformation, not the DNS name', async () => {
    const { instance } = collector([
      [scriptHas('NetGetJoinInformation'), fixture('windows-domain-joined.json')],
    ]);
    expect(await instance.collectDomain('d-1')).toEqual({ id: 'd-1', typeId: 'DOMAIN', domain: 'CONTOSO' });
  });

  it('falls back to the CIM workgroup when Add-Type was refused', async () => {
    const { instance } = collector([
      [scriptHas('Win32_ComputerSystem'), fixture('windows-domain-workgroup-no-netapi.json')],
    ]);
    expect(await instance.collectDomain('d-2')).toEqual({ id: 'd-2', typeId: 'DOMAIN', domain: 'WORKGROUP' });
  });

  it('reports non-internal MAC addresses in lower-case colon form', async () => {
    const { instance } = collector([]);
    expect(await instance.collectMac('m-1')).toEqual({
      id: 'm-1',
      typeId: 'MAC',
      macAddresses: ['00:15:5d:aa:bb:01'],
    });
  });

  it('matches image paths case-insensitively, echoes the query path and reads signers of existing files', async () => {
    const signed = 'C:\\Program Files\\Postern\\postern.exe';
    const { instance, calls } = collector(
      [
        [scriptHas('Win32_Process'), fixture('windows-processes.txt')],
        [scriptHas('X509Certificate2Collection'), fixture('windows-signers.json')],
      ],
      [signed, 'C:\\Tools\\unsigned.exe'],
    );
    const answers = await instance.collectProcesses([
      { id: 'p-1', path: signed },
      { id: 'p-2', path: 'C:\\Tools\\unsigned.exe' },
      { id: 'p-3', path: 'c:\\users\\ZOË\\appdata\\local\\programs\\tool\\tool.exe' },
      { id: 'multi', path: signed.toUpperCase() },
    ]);
    expect(answers).toEqual([
      {
        id: 'p-1',
        typeId: 'PROCESS',
        path: signed,
        isRunning: true,
        hash: `hash-of-${signed.toLowerCase()}`,
        signerFingerprints: [
          'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
          '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432',
          '0563b8630d62d75abbc8ab1e4bdfb5a899b24d43',
        ],
      },
      {
        id: 'p-2',
        typeId: 'PROCESS',
        path: 'C:\\Tools\\unsigned.exe',
        isRunning: false,
        hash: 'hash-of-c:\\tools\\unsigned.exe',
        signerFingerprints: [],
      },
      {
        id: 'p-3',
        typeId: 'PROCESS',
        path: 'c:\\users\\ZOË\\appdata\\local\\programs\\tool\\tool.exe',
        isRunning: true,
        hash: '',
        signerFingerprints: [],
      },
      expect.objectContaining({
        id: 'multi',
        path: signed.toUpperCase(),
        isRunning: true,
        hash: `hash-of-${signed.toLowerCase()}`,
      }),
    ]);
    const signerCall = calls.find(scriptHas('X509Certificate2Collection'));
    // Only the two files that exist are inspected, once each despite the differently cased duplicate.
    expect(signerCall?.script).toContain('Postern\\\\postern.exe');
    expect(signerCall?.script).not.toContain('tool.exe');
    expect(signerCall?.script?.match(/postern\.exe/gi)).toHaveLength(1);
  });

  it('still answers with empty fingerprints when the signature command fails', async () => {
    const path = 'C:\\Program Files\\Postern\\postern.exe';
    const { instance } = collector(
      [
        [scriptHas('Win32_Process'), fixture('windows-processes.txt')],
        [scriptHas('X509Certificate2Collection'), { stdout: '', stderr: 'boom', code: 1 }],
      ],
      [path],
      [path],
    );
    expect(await instance.collectProcesses([{ id: 'p', path }])).toEqual([
      { id: 'p', typeId: 'PROCESS', path, isRunning: true, hash: '', signerFingerprints: [] },
    ]);
  });

  it('rejects when the process list cannot be read, rather than claiming nothing runs', async () => {
    const { instance } = collector([
      [scriptHas('Win32_Process'), { stdout: '', stderr: 'RPC unavailable', code: 1 }],
    ]);
    await expect(instance.collectProcesses([{ id: 'p', path: 'C:\\x.exe' }])).rejects.toThrow(
      /RPC unavailable/,
    );
  });

  it('runs no command for an empty query list', async () => {
    const { instance, calls } = collector([]);
    expect(await instance.collectProcesses([])).toEqual([]);
    expect(calls).toHaveLength(0);
  });
});
