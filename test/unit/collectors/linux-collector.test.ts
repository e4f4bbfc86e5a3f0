import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LinuxCollector, splitKernelRelease } from '../../../src/agent/collectors/linux-collector.js';

const root = mkdtempSync(join(tmpdir(), 'postern-linux-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A fake /proc: each pid directory gets an `exe` symlink to the given target, or none. */
function fakeProc(entries: Record<string, string | null>): string {
  const proc = mkdtempSync(join(root, 'proc-'));
  mkdirSync(join(proc, 'self'));
  for (const [pid, target] of Object.entries(entries)) {
    mkdirSync(join(proc, pid));
    if (target !== null) symlinkSync(target, join(proc, pid, 'exe'));
  }
  return proc;
}

describe('LinuxCollector with a fake /proc', () => {
  const bin = join(root, 'opt', 'agent');
  mkdirSync(join(root, 'opt'), { recursive: true });
  writeFileSync(bin, 'agent binary v1');
  const link = join(root, 'agent-link');
  symlinkSync(bin, link);
  const upgraded = join(root, 'opt', 'upgraded');
  writeFileSync(upgraded, 'new version on disk');

  const procRoot = fakeProc({
    '1': bin,
    '2': null, // kernel thread: no exe
    '3': `${upgraded} (deleted)`,
    '40': '/usr/lib/other',
  });
  const collector = new LinuxCollector({ procRoot });

  it('matches exact paths, strips " (deleted)", resolves symlinked queries and echoes the query path', async () => {
    const answers = await collector.collectProcesses([
      { id: 'a', path: bin },
      { id: 'b', path: upgraded },
      { id: 'c', path: link },
      { id: 'd', path: join(root, 'opt', 'AGENT') },
      { id: 'e', path: `${bin}/` },
    ]);
    expect(answers).toEqual([
      {
        id: 'a',
        typeId: 'PROCESS',
        path: bin,
        isRunning: true,
        hash: sha256('agent binary v1'),
        signerFingerprints: [],
      },
      {
        id: 'b',
        typeId: 'PROCESS',
        path: upgraded,
        isRunning: true,
        hash: sha256('new version on disk'),
        signerFingerprints: [],
      },
      {
        id: 'c',
        typeId: 'PROCESS',
        path: link,
        isRunning: true,
        hash: sha256('agent binary v1'),
        signerFingerprints: [],
      },
      {
        id: 'd',
        typeId: 'PROCESS',
        path: join(root, 'opt', 'AGENT'),
        isRunning: false,
        hash: '',
        signerFingerprints: [],
      },
      { id: 'e', typeId: 'PROCESS', path: `${bin}/`, isRunning: false, hash: '', signerFingerprints: [] },
    ]);
  });

  it('answers every query id when two checks ask for the same path', async () => {
    const answers = await collector.collectProcesses([
      { id: 'single', path: '/usr/lib/other' },
      { id: 'multi', path: '/usr/lib/other' },
    ]);
    expect(answers.map((a) => [a.id, a.isRunning])).toEqual([
      ['single', true],
      ['multi', true],
    ]);
  });

  it('rejects when the proc root itself cannot be read', async () => {
    const broken = new LinuxCollector({ procRoot: join(root, 'no-such-proc') });
    await expect(broken.collectProcesses([{ id: 'a', path: bin }])).rejects.toThrow(/ENOENT/);
  });

  it('reports the kernel release as the OS version, its distribution tag as the build', async () => {
    const fixed = new LinuxCollector({
      kernel: { release: () => '6.8.0-45-generic', version: () => '#45-Ubuntu SMP PREEMPT_DYNAMIC' },
    });
    expect(await fixed.collectOs('os')).toEqual({
      id: 'os',
      typeId: 'OS',
      type: 'Linux',
      version: '6.8.0',
      build: '45-generic',
    });
  });

  it.each([
    ['6.1.0-18-amd64', '6.1.0', '18-amd64'],
    ['5.15.167.4-microsoft-standard-WSL2', '5.15.167', '4-microsoft-standard-WSL2'],
    ['6.9.0', '6.9.0', ''],
    ['6.10-rc3', '6.10.0', 'rc3'],
  ])('splits kernel release %s into %s and %s', (release, version, build) => {
    expect(splitKernelRelease(release)).toEqual({ version, build });
  });

  it('reports an empty domain', async () => {
    expect(await collector.collectDomain('d')).toEqual({ id: 'd', typeId: 'DOMAIN', domain: '' });
  });
});
