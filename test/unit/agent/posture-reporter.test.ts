import { describe, expect, it } from 'vitest';
import { ControllerError } from '../../../src/controller-client/controller-error.js';
import { PostureReporter } from '../../../src/agent/posture/posture-reporter.js';
import { ServiceDirectory } from '../../../src/agent/posture/service-directory.js';
import type { SessionStatus } from '../../../src/agent/session/session-manager.js';
import { FakeClock } from './fake-clock.js';
import { FakeCollector, FakeEdgeApi, query, service, typesOf } from './fakes.js';

function setup(options: { intervalMs?: number } = {}) {
  const clock = new FakeClock();
  const api = new FakeEdgeApi();
  const collector = new FakeCollector();
  const session: SessionStatus = { state: 'active', controllerUrl: 'http://c', apiSessionId: 'api-1' };
  const directory = new ServiceDirectory(api.asEdgeApi(), clock);
  const reporter = new PostureReporter({
    api: api.asEdgeApi(),
    collector,
    directory,
    session: () => session,
    clock,
    intervalMs: options.intervalMs ?? 20_000,
    platform: 'linux',
  });
  api.services = [
    service('os', [query('OS')]),
    service('mac', [query('MAC')]),
    service('proc', [query('PROCESS', { process: { osType: 'Linux', path: '/usr/bin/a' } })]),
  ];
  return { clock, api, collector, session, directory, reporter };
}

describe('PostureReporter', () => {
  it('collects only what the queries ask, one answer per type and per process path', async () => {
    const { api, collector, reporter } = setup();
    api.services = [
      service('one', [query('OS'), query('PROCESS', { process: { osType: 'Linux', path: '/usr/bin/a' } })]),
      service('two', [
        query('OS'),
        query('PROCESS_MULTI', {
          processes: [
            { osType: 'Linux', path: '/usr/bin/a' },
            { osType: 'Linux', path: '/usr/bin/b' },
            { osType: 'Windows', path: 'C:\\x.exe' },
          ],
        }),
        query('MFA'),
      ]),
    ];
    const result = await reporter.runNow();
    expect(result.error).toBeUndefined();
    expect(collector.calls).toEqual({ os: 1, mac: 0, domain: 0, processes: 1 });
    expect(api.bulkSends).toHaveLength(1);
    expect(typesOf(api.bulkSends[0]!)).toEqual(['OS', 'PROCESS:/usr/bin/a', 'PROCESS:/usr/bin/b']);
  });

  it('sends everything first, then nothing while unchanged, then only what changed', async () => {
    const { api, collector, reporter } = setup();
    expect((await reporter.runNow()).full).toBe(true);
    expect(typesOf(api.bulkSends[0]!)).toEqual(['MAC', 'OS', 'PROCESS:/usr/bin/a']);

    const quiet = await reporter.runNow();
    expect(quiet.sent).toEqual([]);
    expect(quiet.unchanged).toHaveLength(3);
    expect(api.bulkSends).toHaveLength(1);

    collector.macs = ['11:22:33:44:55:66'];
    const changed = await reporter.runNow();
    expect(typesOf(changed.sent)).toEqual(['MAC']);
    expect(api.bulkSends[1]).toEqual([
      expect.objectContaining({ typeId: 'MAC', macAddresses: ['11:22:33:44:55:66'] }),
    ]);
  });

  it('resends everything to a new API session', async () => {
    const { api, session, reporter } = setup();
    await reporter.runNow();
    session.apiSessionId = 'api-2';
    const result = await reporter.runNow();
    expect(result.full).toBe(true);
    expect(typesOf(api.bulkSends[1]!)).toEqual(['MAC', 'OS', 'PROCESS:/usr/bin/a']);
  });

  it('keeps data dirty after a failed send and resends all of it on the next cycle', async () => {
    const { api, collector, reporter } = setup();
    await reporter.runNow();
    collector.kernel = '6.9.0';
    api.failNextSend = new ControllerError({ status: 0, code: 'UNREACHABLE', message: 'down' });
    const failed = await reporter.runNow();
    expect(failed.error?.message).toBe('down');
    const after = await reporter.runNow();
    expect(after.full).toBe(true);
    expect(typesOf(after.sent)).toEqual(['MAC', 'OS', 'PROCESS:/usr/bin/a']);
    expect(after.sent.find((r) => r.typeId === 'OS')).toMatchObject({ version: '6.9.0' });
  });

  it('resends everything when asked (controller back after an outage)', async () => {
    const { api, reporter } = setup();
    await reporter.runNow();
    reporter.requestFullResend('controller reachable again');
    await reporter.runNow();
    expect(api.bulkSends).toHaveLength(2);
    expect(api.bulkSends[1]).toHaveLength(3);
  });

  it('never runs two collections at once; requests during a cycle share one follow-up cycle', async () => {
    const { api, collector, reporter } = setup();
    collector.hold();
    const first = reporter.runNow();
    await new Promise((r) => setImmediate(r));
    const second = reporter.runNow();
    const third = reporter.runNow();
    expect(second).toBe(third);
    collector.release();
    await Promise.all([first, second]);
    expect(collector.maxActive).toBeLessThanOrEqual(3); // OS, MAC and processes of one cycle, never two cycles
    expect(collector.calls.os).toBe(2);
    expect(api.bulkSends).toHaveLength(1);
  });

  it('runs periodically on the clock and immediately on demand', async () => {
    const { clock, collector, reporter } = setup({ intervalMs: 20_000 });
    reporter.start();
    await clock.advance(0);
    expect(collector.calls.os).toBe(1);
    await clock.advance(19_999);
    expect(collector.calls.os).toBe(1);
    await clock.advance(1);
    expect(collector.calls.os).toBe(2);
    await reporter.runNow();
    expect(collector.calls.os).toBe(3);
    // On-demand cycles restart the period rather than adding to it.
    await clock.advance(19_999);
    expect(collector.calls.os).toBe(3);
    await clock.advance(1);
    expect(collector.calls.os).toBe(4);
    reporter.stop();
    await clock.advance(60_000);
    expect(collector.calls.os).toBe(4);
  });

  it('refreshes the service list after a send and when lastChangeAt moves', async () => {
    const { api, reporter } = setup();
    await reporter.runNow();
    expect(api.listCalls).toBe(2); // first read, and the read-back after the send
    await reporter.runNow();
    expect(api.listCalls).toBe(2);
    api.lastChangeAt = '2026-01-01T00:01:00.000Z';
    api.services.push(service('domain', [query('DOMAIN')]));
    const result = await reporter.runNow();
    expect(typesOf(result.sent)).toEqual(['DOMAIN']);
    expect(api.listCalls).toBe(4);
  });

  it('does not report while the session owes a code', async () => {
    const { api, collector, session, reporter } = setup();
    session.state = 'needs-totp';
    const result = await reporter.runNow();
    expect(result.skipped).toBe('needs-totp');
    expect(collector.calls.os).toBe(0);
    expect(api.bulkSends).toHaveLength(0);
  });

  it('forgets answers no check asks for, and answers a returning check afresh', async () => {
    const { api, reporter } = setup();
    await reporter.runNow();
    const mac = api.services.splice(1, 1);
    api.lastChangeAt = 't2';
    expect((await reporter.runNow()).sent).toEqual([]);
    api.services.push(...mac);
    api.lastChangeAt = 't3';
    expect(typesOf((await reporter.runNow()).sent)).toEqual(['MAC']);
  });
});

describe('PostureReporter: facts declared by posture type descriptors', () => {
  it('collects only the fact types some check asks for, once per type, answering with the smallest check id', async () => {
    const { api, directory, session, clock, collector } = setup();
    const asked: string[] = [];
    const facts = {
      collect: async (typeId: string, id: string) => {
        asked.push(`${typeId}:${id}`);
        return typeId === 'FIREWALL'
          ? { id, typeId: 'FIREWALL' as const, enabled: true }
          : { id, typeId: 'DISK_ENCRYPTION' as const, encrypted: null, unknownReason: 'not a disk' };
      },
    };
    const reporter = new PostureReporter({
      api: api.asEdgeApi(),
      collector,
      facts,
      directory,
      session: () => session,
      clock,
      platform: 'linux',
    });
    api.services = [
      service('a', [query('DISK_ENCRYPTION', { id: 'disk-b' }), query('FIREWALL', { id: 'fw' })]),
      service('b', [query('DISK_ENCRYPTION', { id: 'disk-a' }), query('OS')]),
    ];
    const result = await reporter.runNow();
    expect(result.error).toBeUndefined();
    expect(asked.sort()).toEqual(['DISK_ENCRYPTION:disk-a', 'FIREWALL:fw']);
    expect(api.bulkSends[0]).toEqual(
      expect.arrayContaining([
        { id: 'disk-a', typeId: 'DISK_ENCRYPTION', encrypted: null, unknownReason: 'not a disk' },
        { id: 'fw', typeId: 'FIREWALL', enabled: true },
      ]),
    );
    expect(typesOf(api.bulkSends[0]!)).toEqual(['DISK_ENCRYPTION', 'FIREWALL', 'OS']);

    // Unchanged facts are not sent again; a check of the type gone, its answer is no longer collected.
    expect((await reporter.runNow()).sent).toEqual([]);
    api.services = [service('b', [query('OS')])];
    api.lastChangeAt = 't2';
    asked.length = 0;
    await reporter.runNow();
    expect(asked).toEqual([]);
  });
});
