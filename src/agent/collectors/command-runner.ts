import { execFile } from 'node:child_process';

export interface CommandResult {
  stdout: string;
  stderr: string;
  /** Exit code; `null` when the process was killed (for example by the timeout). */
  code: number | null;
}

/**
 * Runs one OS command without a shell. Collectors take it as a parameter so the Windows and macOS
 * collectors can be tested on any machine with recorded outputs.
 */
export type CommandRunner = (file: string, args: readonly string[]) => Promise<CommandResult>;

export interface ExecFileRunnerOptions {
  timeoutMs?: number;
}

/**
 * The real runner. A non-zero exit resolves (the collector decides what it means); only a command that
 * cannot be started rejects. The timeout keeps a hung PowerShell from stalling every later report.
 */
export function createExecFileRunner(options: ExecFileRunnerOptions = {}): CommandRunner {
  const timeout = options.timeoutMs ?? 30_000;
  return (file, args) =>
    new Promise((resolve, reject) => {
      execFile(
        file,
        [...args],
        { encoding: 'utf8', timeout, windowsHide: true, maxBuffer: 32 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error && typeof error.code === 'string') {
            reject(error);
            return;
          }
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ stdout, stderr, code });
        },
      );
    });
}

/** Rejects with a message naming the command when it did not exit 0. */
export async function runChecked(run: CommandRunner, file: string, args: readonly string[]): Promise<string> {
  const result = await run(file, args);
  if (result.code !== 0) {
    const detail = result.stderr.trim().slice(0, 500);
    throw new Error(`${file} exited with ${String(result.code)}${detail ? `: ${detail}` : ''}`);
  }
  return result.stdout;
}
