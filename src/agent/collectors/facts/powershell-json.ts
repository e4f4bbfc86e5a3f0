/** The JSON object a fact script prints, and the words for a script that failed (for `unknownReason`). */
import type { CommandResult } from '../command-runner.js';

/** Throws on output that is not a JSON object: the fact collector turns that into an unknown fact. */
export function parsePowershellJson(stdout: string, what: string): Record<string, unknown> {
  const text = stdout.replace(/^\uFEFF/, '').trim();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`unexpected ${what} output from PowerShell: ${text.slice(0, 120) || '(empty)'}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new Error(`unexpected ${what} output from PowerShell: ${text.slice(0, 120)}`);
  return data as Record<string, unknown>;
}

export function powershellFailure(result: CommandResult, what: string): string {
  const detail = result.stderr
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/)[0]
    ?.slice(0, 200);
  return `the ${what} query failed (exit ${String(result.code)})${detail ? `: ${detail}` : ''}`;
}
