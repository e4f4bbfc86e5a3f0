/**
 * The agent CLI's code prompts, driven as a person at a terminal drives them: the CLI runs on a pseudo-
 * terminal (util-linux `script`), keys are typed into it and what the terminal shows is read back. Against a
 * real controller whose clock the test moves, so each code is one the controller has not seen yet.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, createUser } from '../helpers/api.js';
import { adminApi, guardedService } from '../helpers/agent-setup.js';
import { startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { AuthenticatorApp, enrollVerified, FakeClock } from '../helpers/mfa.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const dirs: string[] = [];
let tc: TestController;
let clock: FakeClock;
let app: AuthenticatorApp;

/** A terminal's control sequences (clear line, cursor moves), left out when reading the screen as text. */
const ESCAPE_SEQUENCES = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g');

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** The CLI on a pseudo-terminal: `type` sends keys, `seen` waits for text on the screen. */
class TerminalSession {
  private screen = '';
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(args: string[], env: Record<string, string>) {
    const dir = tempDir('postern-pty-');
    dirs.push(dir);
    const command = [process.execPath, '--import', 'tsx', CLI, '--credential-store', 'memory']
      .concat(['--config-dir', dir, '--controller', tc.url, ...args])
      .map(quote)
      .join(' ');
    this.child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env: { ...process.env, POSTERN_TOTP_CODE: '', ...env },
    });
    const take = (chunk: Buffer) => {
      this.screen += chunk.toString();
      for (const waiter of this.waiters) waiter();
    };
    this.child.stdout!.on('data', take);
    this.child.stderr!.on('data', take);
    this.exited = new Promise((resolve) => this.child.on('exit', resolve));
  }

  get text(): string {
    return this.screen;
  }

  type(line: string): void {
    this.child.stdin!.write(`${line}\r`);
  }

  /** Waits until `pattern` shows after character `from` (default: anywhere); resolves with its end. */
  seen(pattern: string | RegExp, from = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      const find = () => {
        const rest = this.screen.slice(from);
        const match = typeof pattern === 'string' ? rest.indexOf(pattern) : rest.search(pattern);
        if (match < 0) return false;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(from + match + 1);
        return true;
      };
      const check = () => void find();
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`never showed ${String(pattern)}; the terminal shows:\n${this.screen}`));
      }, 45_000);
      if (!find()) this.waiters.add(check);
    });
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }
}

beforeAll(async () => {
  tc = await startTestController();
  clock = new FakeClock(tc.ctx);
  const admin = await adminApi(tc.url);
  await guardedService(admin, 'pty-mfa', 'pty', {
    typeId: 'MFA',
    timeoutSeconds: -1,
    promptOnUnlock: true,
    promptOnWake: true,
  });
  await createUser(admin, 'pty-user', 'pty-password', { roleAttributes: ['pty'] });
  await createUser(admin, 'pty-new', 'pty-password', { roleAttributes: ['pty'] });
  await createUser(admin, 'pty-plain', 'pty-password', { roleAttributes: ['pty'] });
  const user = new Api(tc.url);
  await user.login('pty-user', 'pty-password');
  app = (await enrollVerified(user, clock)).app;
}, 60_000);

afterAll(async () => {
  await tc?.dispose();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('code prompts at a terminal', () => {
  it('run: a command word at the unlock prompt runs and costs nothing, a non-code is refused unsent, and output never runs into the prompt', async () => {
    clock.nextStep();
    const session = new TerminalSession(['run', '--username', 'pty-user', '--no-tunnel'], {
      POSTERN_PASSWORD: 'pty-password',
      POSTERN_TOTP_CODE: await app.code(clock.now()),
    });
    try {
      await session.seen('Reporting every');
      clock.nextStep();
      session.type('unlock');
      let at = await session.seen('Authenticator code');
      session.type('status');
      at = await session.seen('session     signed in', at);
      // the status went above the prompt, which is asked again below it
      at = await session.seen('Authenticator code', at);
      session.type('hello');
      at = await session.seen('That is not a code', at);
      session.type(await app.code(clock.now()));
      await session.seen('Code accepted.', at);
      expect(session.text).not.toContain('not accepted');
      // Each prompt is the last thing on its line: only what was typed at it follows, never later output.
      const plain = session.text.replace(ESCAPE_SEQUENCES, '');
      for (const line of plain.split(/\r\n|\n|\r/))
        if (line.includes('Authenticator code (')) expect(line).toMatch(/skip\): (status|hello|\d{6})?$/);
      session.type('quit');
      expect(await session.exited).toBe(0);
    } finally {
      session.kill();
    }
  }, 90_000);

  it('run: unlock before MFA is set up says why no code is asked', async () => {
    const session = new TerminalSession(['run', '--username', 'pty-plain', '--no-tunnel'], {
      POSTERN_PASSWORD: 'pty-password',
    });
    try {
      await session.seen('Reporting every');
      session.type('unlock');
      await session.seen('No code will be asked: this identity has no authenticator app set up yet');
      session.type('quit');
      expect(await session.exited).toBe(0);
    } finally {
      session.kill();
    }
  }, 90_000);

  it('mfa setup asks again after a mistyped code and a wrong one, then sets up; mfa status names the next command', async () => {
    const status = new TerminalSession(['mfa', 'status', '--username', 'pty-new'], {
      POSTERN_PASSWORD: 'pty-password',
    });
    await status.seen('npm run agent -- mfa setup');
    expect(await status.exited).toBe(0);

    const session = new TerminalSession(['mfa', 'setup', '--username', 'pty-new'], {
      POSTERN_PASSWORD: 'pty-password',
    });
    try {
      let at = await session.seen('Code from the app to finish');
      const secret = /enter the secret by hand: (\S+)/.exec(session.text)?.[1];
      expect(secret).toBeDefined();
      const newApp = new AuthenticatorApp(`otpauth://totp/x?secret=${secret}`);
      session.type('12345');
      at = await session.seen('That is not a code', at);
      at = await session.seen('Code from the app', at);
      session.type('000000');
      at = await session.seen('wrong code', at);
      at = await session.seen('Code from the app', at);
      session.type(await newApp.code(clock.now()));
      await session.seen('MFA is set up.', at);
      await session.seen('npm run agent -- services', at);
      expect(await session.exited).toBe(0);
    } finally {
      session.kill();
    }
  }, 90_000);

  it('a code used once says "already used; wait for the next one", as the console does', async () => {
    clock.nextStep();
    const code = await app.code(clock.now());
    const env = { POSTERN_PASSWORD: 'pty-password', POSTERN_TOTP_CODE: code };
    const first = new TerminalSession(['status', '--username', 'pty-user'], env);
    expect(await first.exited).toBe(0);
    const again = new TerminalSession(['services', '--username', 'pty-user'], env);
    const at = await again.seen('That code was already used; wait for the next one');
    await again.seen('Authenticator code', at);
    again.type('');
    expect(await again.exited).toBe(5);
  }, 90_000);
});

describe.runIf(process.platform === 'linux')('login --ca', () => {
  it('is remembered like the fingerprint: later commands trust the controller without it', async () => {
    const https = await startTestController({ https: true });
    const dir = tempDir('postern-ca-');
    dirs.push(dir);
    try {
      const admin = new Api(https.url, undefined, https.tls!.cert);
      await admin.login('admin', 'admin-password-for-tests');
      await createUser(admin, 'ca-user', 'ca-password');
      const cli = (args: string[]) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(
            process.execPath,
            ['--import', 'tsx', CLI, '--credential-store', 'memory', '--config-dir', dir, ...args],
            { env: { ...process.env, POSTERN_PASSWORD: 'ca-password' } },
          );
          let stderr = '';
          child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
          child.stdin.end();
          child.on('close', (code) => resolve({ code, stderr }));
        });
      const certFile = https.tls!.certFile;
      const login = await cli(['--controller', https.url, '--ca', certFile, 'login', 'ca-user']);
      expect(login.code, login.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(dir, 'agent.json'), 'utf8'))).toMatchObject({ caFile: certFile });
      const later = await cli(['status']);
      expect(later.code, later.stderr).toBe(0);
    } finally {
      await https.dispose();
    }
  }, 90_000);
});
