/**
 * Running the system's network commands (`ip`, `nft`, `resolvectl`): never through a shell (arguments are an
 * array), optionally with text on stdin (`nft -f -`), and a failure names the command line and carries what
 * the command printed on stderr, so the caller's message says what the system refused and why.
 */
import { execFile } from 'node:child_process';

export interface CommandOutcome {
  stdout: string;
  stderr: string;
  /** the exit code; null when the command was killed */
  code: number | null;
}

/** Runs one command; the system layer takes it as a parameter so the command lines can be checked in unit tests. */
export type SystemCommand = (
  file: string,
  args: readonly string[],
  input?: string,
) => Promise<CommandOutcome>;

/** A command that could not be started (not installed) or exited non-zero. */
export class CommandFailed extends Error {
  constructor(
    readonly commandLine: string,
    readonly outcome: CommandOutcome | undefined,
    cause?: Error,
  ) {
    const stderr = outcome?.stderr.trim().slice(0, 1000);
    super(
      outcome
        ? `${commandLine} failed (${outcome.code === null ? 'killed' : `exit ${outcome.code}`})${stderr ? `: ${stderr}` : ''}`
        : `${commandLine} could not start: ${cause?.message ?? 'unknown error'}`,
    );
  }
}

/** The real runner. 30 s: these commands answer in milliseconds; a hung one must not hold the agent's start. */
export const runSystemCommand: SystemCommand = (file, args, input) =>
  new Promise((resolve, reject) => {
    const child = execFile(
      file,
      [...args],
      { encoding: 'utf8', timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code === 'string') {
          reject(new CommandFailed([file, ...args].join(' '), undefined, error));
          return;
        }
        resolve({ stdout, stderr, code: error ? (typeof error.code === 'number' ? error.code : null) : 0 });
      },
    );
    // A command that exits before reading all its input closes the pipe; its exit code says what went wrong.
    child.stdin?.on('error', () => {});
    child.stdin?.end(input ?? '');
  });

/** Runs the command and returns its stdout, or throws CommandFailed naming it with its stderr. */
export async function runChecked(
  run: SystemCommand,
  file: string,
  args: readonly string[],
  input?: string,
): Promise<string> {
  const outcome = await run(file, args, input);
  if (outcome.code !== 0) throw new CommandFailed([file, ...args].join(' '), outcome);
  return outcome.stdout;
}
