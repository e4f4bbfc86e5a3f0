/**
 * `run --intercept` where intercept mode cannot run says why and exits 1 before anything else (no sign-in, no
 * proxy mode the user did not ask for): here, a user who is not root (a child run as uid 65534). And the two
 * options that contradict each other are a usage error.
 */
import { spawn } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/controller.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');

function run(args: string[], uid?: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const configDir = tempDir('postern-intercept-cli-');
  chmodSync(configDir, 0o777);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, '--credential-store', 'memory', '--config-dir', configDir, ...args],
    {
      // An unreachable controller: the command must end before it would ever try one.
      env: { ...process.env, POSTERN_CONTROLLER_URL: 'https://127.0.0.1:9', HOME: configDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(uid === undefined ? {} : { uid, gid: uid }),
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('run --intercept without the privileges it needs', () => {
  it.skipIf(process.platform !== 'linux' || process.getuid?.() !== 0)(
    'says why in words and exits 1 (a user who is not root)',
    async () => {
      const result = await run(['run', '--intercept'], 65534);
      expect(result.stderr).toMatch(
        /intercept mode is not available: intercept mode needs root \(or CAP_NET_ADMIN\)/,
      );
      expect(result.stderr).not.toMatch(/127\.0\.0\.1:9/);
      expect(result.code).toBe(1);
    },
  );

  it('--intercept with --no-tunnel is a usage error (exit 2)', async () => {
    const result = await run(['run', '--intercept', '--no-tunnel']);
    expect(result.stderr).toMatch(/--intercept and --no-tunnel cannot be used together/);
    expect(result.code).toBe(2);
  });
});
