import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, DEFAULT_HEAP_GROWING_PERCENT } from '../../../server/heap-growth.js';

const CLI = fileURLToPath(new URL('../../../server/cli.ts', import.meta.url));
const MODULE = fileURLToPath(new URL('../../../server/heap-growth.ts', import.meta.url));

describe('the controller bounds its heap growth', () => {
  it('applies 20 % by default, the environment’s whole percent otherwise, 0 leaving V8’s own', () => {
    // In a child: the flag is process-wide.
    const script = `
      const { boundHeapGrowth } = await import(${JSON.stringify(MODULE)});
      console.log(boundHeapGrowth());`;
    const run = (percent?: string) =>
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        env: { ...process.env, POSTERN_HEAP_GROWING_PERCENT: percent },
      }).trim();
    expect(run(undefined)).toBe(String(DEFAULT_HEAP_GROWING_PERCENT));
    expect(run('35')).toBe('35');
    expect(run('0')).toBe('0');
  });

  it.each(['abc', '-5', '2.5', '100000'])('refuses POSTERN_HEAP_GROWING_PERCENT=%s, naming it', (text) => {
    expect(() => boundHeapGrowth({ POSTERN_HEAP_GROWING_PERCENT: text })).toThrow(
      /POSTERN_HEAP_GROWING_PERCENT must be a whole number from 0/,
    );
  });

  it('stops the controller at start on a bad value, saying why, before it opens anything', () => {
    const res = spawnSync(
      process.execPath,
      ['--import', 'tsx', CLI, '--data-dir', '/nonexistent/x', '--port', '0'],
      {
        encoding: 'utf8',
        env: { ...process.env, POSTERN_HEAP_GROWING_PERCENT: 'lots' },
        timeout: 120_000,
      },
    );
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(
      "POSTERN_HEAP_GROWING_PERCENT must be a whole number from 0 (V8's own) to 1000, not 'lots'",
    );
  });
});
