/**
 * What the agent core and the controller client log through. The CLI prints warnings to stderr, the desktop
 * app can forward to its own log; nothing in the core writes to the console directly. Messages never
 * contain secrets.
 */
export interface AgentLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const silentLogger: AgentLogger = { debug() {}, info() {}, warn() {}, error() {} };

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number] | 'silent';

/**
 * Writes `level` and above to stderr, one line each, prefixed with the program's name and the level so they
 * stand apart from command output (`postern-agent warning: …`).
 */
export function stderrLogger(
  level: LogLevel = 'warn',
  write: (line: string) => void = (l) => process.stderr.write(l),
  program = 'postern-agent',
): AgentLogger {
  const min = level === 'silent' ? LEVELS.length : LEVELS.indexOf(level);
  const at = (i: number, name: string) => (message: string) => {
    if (i >= min) write(`${program} ${name}: ${message}\n`);
  };
  return { debug: at(0, 'debug'), info: at(1, 'info'), warn: at(2, 'warning'), error: at(3, 'error') };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
