import { describe, expect, it } from 'vitest';
import { createCollector } from '../../../src/agent/collectors/create-collector.js';
import { LinuxCollector } from '../../../src/agent/collectors/linux-collector.js';
import { MacosCollector } from '../../../src/agent/collectors/macos-collector.js';
import { WindowsCollector } from '../../../src/agent/collectors/windows-collector.js';
import { fakeRunner, fixture } from './fake-runner.js';

describe('createCollector', () => {
  it('chooses the implementation by platform', () => {
    expect(createCollector({ platform: 'linux' })).toBeInstanceOf(LinuxCollector);
    expect(createCollector({ platform: 'win32' })).toBeInstanceOf(WindowsCollector);
    expect(createCollector({ platform: 'darwin' })).toBeInstanceOf(MacosCollector);
  });

  it('defaults to the running platform', () => {
    const expected = { linux: LinuxCollector, win32: WindowsCollector, darwin: MacosCollector }[
      process.platform as 'linux'
    ];
    expect(createCollector()).toBeInstanceOf(expected);
  });

  it('passes the command runner through', async () => {
    const { run, calls } = fakeRunner([[() => true, fixture('macos-sw_vers.txt')]]);
    await createCollector({ platform: 'darwin', run }).collectOs('os');
    expect(calls.map((c) => c.file)).toEqual(['/usr/bin/sw_vers']);
  });

  it('refuses a platform it has no collector for', () => {
    expect(() => createCollector({ platform: 'freebsd' })).toThrow(/not supported on platform 'freebsd'/);
  });
});
