/**
 * The headless agent as users run it (`src/agent/cli.ts run`) in a child process: its own node (so its CPU
 * and memory can be read from /proc/<pid>), a memory credential store (no keychain needed), a throwaway
 * config dir, stdin kept open as the console's input, and every line it prints kept for assertions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');

export interface AgentProcess {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr as printed so far, in arrival order */
  output(): string;
  /** resolves with the output once `pattern` matches text printed after `fromIndex` (default: anywhere) */
  waitFor(pattern: RegExp, timeoutMs?: number, fromIndex?: number): Promise<string>;
  /** a console command (`unlock`, `report`, a code answering a prompt, ...) */
  type(line: string): void;
  /** resolves with the exit code, or null when killed by a signal */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface AgentRunOptions {
  controllerUrl: string;
  username: string;
  password: string;
  /** report interval in seconds (the CLI's --interval); the CLI's default when absent */
  intervalSeconds?: number;
  verbose?: boolean;
  /** the CLI's --socks-port (0: any free port) */
  socksPort?: number;
  /** the agent's --config-dir, kept after it exits (so another command can read it); a throwaway one if absent */
  configDir?: string;
}

export function startAgentRun(options: AgentRunOptions): AgentProcess {
  const configDir = options.configDir ?? mkdtempSync(join(tmpdir(), 'postern-agent-run-'));
  const args = [
    '--import',
    'tsx',
    CLI,
    'run',
    '--controller',
    options.controllerUrl,
    '--username',
    options.username,
    '--credential-store',
    'memory',
    '--config-dir',
    configDir,
  ];
  if (options.intervalSeconds !== undefined) args.push('--interval', String(options.intervalSeconds));
  if (options.verbose) args.push('--verbose');
  if (options.socksPort !== undefined) args.push('--socks-port', String(options.socksPort));
  const child = spawn(process.execPath, args, {
    env: { ...process.env, POSTERN_PASSWORD: options.password, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return watchAgent(child, () => {
    if (!options.configDir) rmSync(configDir, { recursive: true, force: true });
  });
}

/**
 * An agent process however it was started (here, or inside a network namespace by netns-world.ts): its
 * output kept, waited on by pattern, typed to, stopped. `onExit` runs once it has exited (cleanup).
 */
export function watchAgent(child: ChildProcess, onExit: () => void = () => undefined): AgentProcess {
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      onExit();
      for (const check of waiters) check();
      resolve(code);
    }),
  );
  return {
    child,
    pid: child.pid!,
    output: () => output,
    exited,
    type: (line) => child.stdin!.write(`${line}\n`),
    waitFor(pattern, timeoutMs = 60_000, fromIndex = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(output.slice(fromIndex))) {
            done();
            resolve(output);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(
              new Error(
                `agent exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${output}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`agent did not print ${pattern} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
