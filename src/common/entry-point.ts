/**
 * Runs a CLI's `main` only when its module is the program (also through an npm bin's symlink), so tests can
 * import the module without running it; exits with what `main` answers.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

function isEntryPoint(moduleUrl: string): boolean {
  try {
    return Boolean(process.argv[1]) && moduleUrl === pathToFileURL(realpathSync(process.argv[1]!)).href;
  } catch {
    return false;
  }
}

export function runIfEntryPoint(
  moduleUrl: string,
  programName: string,
  main: (argv: string[]) => Promise<number>,
): void {
  if (!isEntryPoint(moduleUrl)) return;
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${programName}: ${String(error)}\n`);
      process.exit(1);
    },
  );
}
