import { describe, expect, it, vi } from 'vitest';
import { ControllerError } from '../../../src/controller-client/controller-error.js';
import { PostureReporter } from '../../../src/agent/posture/posture-reporter.js';
import { ServiceDirectory } from '../../../src/agent/posture/service-directory.js';
import { PowerEventEmitter } from '../../../src/agent/power/power-events.js';
import { PowerReactor } from '../../../src/agent/power/power-reactor.js';
import { MfaPrompter, WRONG_CODE_MESSAGE } from '../../../src/agent/prompts/mfa-prompter.js';
import { MfaTimeoutWatch } from '../../../src/agent/prompts/mfa-timeout-watch.js';
import type { AgentNotice, PromptPort, TotpPrompt } from '../../../src/agent/prompts/prompt-port.js';
import { FakeClock, settle } from './fake-clock.js';
import { FakeCollector, FakeEdgeApi, query, service } from './fakes.js';

/** A prompt port whose prompts stay open until the test answers them. */
class ScriptedPort implements PromptPort {
  readonly prompts: TotpPrompt[] = [];
  readonly updates: TotpPrompt[] = [];
  readonly notices: AgentNotice[] = [];
  private answer: ((code: string | null) => void) | undefined;

  promptTotp(prompt: TotpPrompt, signal: AbortSignal): Promise<string | null> {
    this.prompts.push(prompt);
    return new Promise((resolve) => {
      this.answer = resolve;
      signal.addEventListener('abort', () => resolve(null));
    });
  }

  updatePrompt(prompt: TotpPrompt): void {
    this.updates.push(prompt);
  }

  notify(notice: AgentNotice): void {
    this.notices.push(notice);
  }

  async reply(code: string | null): Promise<void> {
    this.answer?.(code);
    await settle();
  }
}

const wrongCode = () => new ControllerError({ status: 400, code: 'MFA_INVALID_TOKEN', message: 'bad code' });

describe('MfaPrompter', () => {
  it('merges requests that arrive while a prompt is open into that one prompt', async () => {
    const port = new ScriptedPort();
    const submit = vi.fn(async () => {});
    const prompter = new MfaPrompter({ port, submit, clock: new FakeClock() });
    const a = prompter.request({
      reason: 'unlock',
      services: [{ id: '1', name: 'wiki' }],
      deadline: 300_000,
    });
    const b = prompter.request({
      reason: 'timeout',
      services: [
        { id: '2', name: 'git' },
        { id: '1', name: 'wiki' },
      ],
      deadline: 60_000,
    });
    await settle();
    expect(port.prompts).toHaveLength(1);
    expect(port.updates.at(-1)).toMatchObject({ services: [{ id: '1' }, { id: '2' }], deadline: 60_000 });
    await port.reply('123456');
    await expect(a).resolves.toBe(true);
    await expect(b).resolves.toBe(true);
    expect(submit).toHaveBeenCalledTimes(1);
    expect(port.notices).toContainEqual({ type: 'mfa-accepted', reason: 'unlock' });
  });

  it('asks again after a wrong code, saying why, and gives up after three', async () => {
    const port = new ScriptedPort();
    const prompter = new MfaPrompter({
      port,
      submit: async () => Promise.reject(wrongCode()),
      clock: new FakeClock(),
    });
    const outcome = prompter.request({ reason: 'login' });
    await settle();
    await port.reply('000000');
    expect(port.prompts[1]).toMatchObject({ attempt: 2, error: WRONG_CODE_MESSAGE });
    await port.reply('000001');
    await port.reply('000002');
    await expect(outcome).resolves.toBe(false);
    expect(port.prompts).toHaveLength(3);
    expect(port.notices.at(-1)).toMatchObject({ type: 'mfa-failed' });
  });

  it('resolves false without submitting when the user dismisses the prompt', async () => {
    const port = new ScriptedPort();
    const submit = vi.fn(async () => {});
    const prompter = new MfaPrompter({ port, submit, clock: new FakeClock() });
    const outcome = prompter.request({ reason: 'wake' });
    await settle();
    await port.reply(null);
    await expect(outcome).resolves.toBe(false);
    expect(submit).not.toHaveBeenCalled();
    expect(prompter.isOpen).toBe(false);
  });

  it('does not prompt for an event a code has already answered', async () => {
    const port = new ScriptedPort();
    const clock = new FakeClock();
    const prompter = new MfaPrompter({ port, submit: async () => {}, clock });
    const first = prompter.request({ reason: 'login' });
    await settle();
    await port.reply('123456');
    await first;
    await expect(prompter.request({ reason: 'unlock', since: clock.now() })).resolves.toBe(true);
    expect(port.prompts).toHaveLength(1);
  });

  it('reports a rate limit in words instead of asking again', async () => {
    const port = new ScriptedPort();
    const limited = new ControllerError({
      status: 429,
      code: 'RATE_LIMITED',
      message: 'slow down',
      retryAfterMs: 42_000,
    });
    const prompter = new MfaPrompter({
      port,
      submit: async () => Promise.reject(limited),
      clock: new FakeClock(),
    });
    const outcome = prompter.request({ reason: 'login' });
    await settle();
    await port.reply('123456');
    await expect(outcome).resolves.toBe(false);
    expect(port.notices).toContainEqual({
      type: 'mfa-failed',
      reason: 'login',
      message: 'Too many attempts; try again in 42 s.',
    });
  });
});

function reactorSetup(mfaEnrolled: boolean | undefined = true) {
  const clock = new FakeClock();
  const api = new FakeEdgeApi();
  const port = new ScriptedPort();
  const power = new PowerEventEmitter();
  const submit = vi.fn(async () => {});
  const directory = new ServiceDirectory(api.asEdgeApi(), clock);
  const prompter = new MfaPrompter({ port, submit, clock });
  const reporter = new PostureReporter({
    api: api.asEdgeApi(),
    collector: new FakeCollector(),
    directory,
    session: () => ({ state: 'active', controllerUrl: 'http://c', apiSessionId: 'a' }),
    clock,
    platform: 'linux',
  });
  const reactor = new PowerReactor({
    power,
    api: api.asEdgeApi(),
    directory,
    prompter,
    reporter,
    port,
    clock,
    canReport: () => true,
    mfaEnrolled: () => mfaEnrolled,
  });
  reactor.start();
  api.services = [
    service('wiki', [query('MFA', { promptOnUnlock: true, isPassing: true })], true),
    service('git', [query('MFA', { promptOnWake: true, isPassing: true })], true),
    service('open', [], true),
  ];
  return { clock, api, port, power, submit, reactor };
}

describe('PowerReactor', () => {
  it('on unlock sends ENDPOINT_STATE at once and raises one prompt with the grace deadline', async () => {
    const { clock, api, port, power } = reactorSetup();
    api.reply = {
      services: [
        { id: 'svc-wiki', name: 'wiki', postureQueryType: 'MFA', timeout: -1, timeoutRemaining: 300 },
      ],
    };
    const start = clock.now();
    power.emit('unlock-screen');
    await settle();
    expect(api.singleSends).toEqual([expect.objectContaining({ typeId: 'ENDPOINT_STATE', unlocked: true })]);
    expect(port.prompts).toHaveLength(1);
    expect(port.prompts[0]).toMatchObject({
      reason: 'unlock',
      services: [{ id: 'svc-wiki', name: 'wiki' }],
      deadline: start + 300_000,
    });
  });

  it('raises ONE prompt for a burst of events (wake and unlock together)', async () => {
    const { api, port, power } = reactorSetup();
    power.emit('resume');
    power.emit('unlock-screen');
    await settle();
    expect(api.singleSends).toHaveLength(2);
    expect(port.prompts).toHaveLength(1);
    const covered = [port.prompts[0]!, ...port.updates].flatMap((p) => p.services.map((s) => s.name));
    expect(new Set(covered)).toEqual(new Set(['wiki', 'git']));
  });

  it('sends nothing on lock or suspend', async () => {
    const { api, port, power } = reactorSetup();
    power.emit('lock-screen');
    power.emit('suspend');
    await settle();
    expect(api.singleSends).toEqual([]);
    expect(port.prompts).toEqual([]);
  });

  it('points to enrollment instead of prompting when no authenticator is set up', async () => {
    const { port, power } = reactorSetup(false);
    power.emit('unlock-screen');
    await settle();
    expect(port.prompts).toEqual([]);
    expect(port.notices).toContainEqual({
      type: 'mfa-enrollment-required',
      services: [{ id: 'svc-wiki', name: 'wiki' }],
    });
  });
});

describe('MfaTimeoutWatch', () => {
  it('prompts once, a threshold ahead of the earliest MFA timeout', async () => {
    const clock = new FakeClock();
    const api = new FakeEdgeApi();
    const port = new ScriptedPort();
    const directory = new ServiceDirectory(api.asEdgeApi(), clock);
    const prompter = new MfaPrompter({ port, submit: async () => {}, clock });
    const watch = new MfaTimeoutWatch({
      directory,
      prompter,
      clock,
      enabled: () => true,
      thresholdMs: 60_000,
    });
    api.services = [
      service('wiki', [query('MFA', { isPassing: true, timeout: 3600, timeoutRemaining: 180 })], true),
      service('git', [query('MFA', { isPassing: true, timeout: 3600, timeoutRemaining: 200 })], true),
      service('mail', [query('MFA', { isPassing: true, timeout: 3600, timeoutRemaining: 3000 })], true),
    ];
    watch.start();
    await directory.refresh();
    await clock.advance(119_000);
    expect(port.prompts).toHaveLength(0);
    // The list read at the planned moment has the same deadlines, 60 s ahead.
    api.services.forEach((s) => (s.postureQueries[0]!.postureQueries[0]!.timeoutRemaining -= 120));
    await clock.advance(1_000);
    expect(port.prompts).toHaveLength(1);
    expect(port.prompts[0]).toMatchObject({
      reason: 'timeout',
      services: [{ name: 'wiki' }, { name: 'git' }],
    });
    await directory.refresh();
    expect(port.prompts).toHaveLength(1);
    watch.stop();
  });
});
