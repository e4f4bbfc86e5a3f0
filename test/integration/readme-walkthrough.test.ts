/**
 * The README is a test: its walkthrough (controller, identity, posture check, service and policy; the agent
 * signs in and reports; the service is granted; the sensor stops and the service is blocked, saying why; the
 * sensor starts and the service is granted again) runs here verbatim, so the README cannot drift again.
 *
 * Convention: a fenced block whose info string is exactly `sh walkthrough` is part of the walkthrough. Those
 * blocks run in README order, concatenated into ONE bash process (`set -euo pipefail`), as a reader would
 * paste them into one shell; every other fence (plain `sh`, `text`, …) is documentation only. The README
 * reads `DEMO` (scratch folder) and `PORT` (controller port) with defaults; the test sets both, and points
 * HOME and the XDG folders at a temporary folder, so nothing touches the real user's files or keychain.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/controller.js';
import {
  newUserShell,
  MARK,
  outputsByBlock,
  REPO,
  runBash,
  scriptOf,
  walkthroughBlocks,
} from '../helpers/markdown-walkthrough.js';
/** Each `crm` row of the services tables printed, in order: its access word and the rest of the line. */
function crmRows(output: string): { access: string; rest: string }[] {
  return [...output.matchAll(/^crm +(yes|blocked|needs code)(.*)$/gm)].map((m) => ({
    access: m[1]!,
    rest: m[2]!.trim(),
  }));
}

const root = tempDir('postern-readme-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('README walkthrough', () => {
  it('runs verbatim on Linux: granted, blocked naming the sensor, granted again', async () => {
    const blocks = walkthroughBlocks(readFileSync(join(REPO, 'README.md'), 'utf8'));
    expect(blocks.length, 'README.md has `sh walkthrough` blocks').toBeGreaterThanOrEqual(5);

    const env = await newUserShell(root);
    const demo = env.DEMO;

    const started = Date.now();
    const { exitCode, output } = await runBash(scriptOf(blocks), env, 100_000);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);

    if (exitCode !== 0 || !output.includes(`${MARK} done`)) {
      const byBlock = outputsByBlock(output);
      const failed = Math.max(-1, ...byBlock.keys());
      const block = blocks[failed];
      let log = '';
      try {
        log = readFileSync(join(demo, 'controller.log'), 'utf8').split('\n').slice(-20).join('\n');
      } catch {
        log = '(none)';
      }
      expect.fail(
        block
          ? `README.md walkthrough block ${failed + 1} of ${blocks.length} (fence at line ${block.line}) ` +
              `failed after ${seconds} s, bash exit ${exitCode}:\n${block.code}\n--- its output ---\n` +
              `${byBlock.get(failed)}\n--- controller.log (last lines) ---\n${log}`
          : `the walkthrough failed before its first block (exit ${exitCode}):\n${output}`,
      );
    }

    // What the walkthrough promises, in order: granted after the first report, blocked with the sensor's
    // path once it stops, granted again once it runs. The wording of the advice may change; the path stays.
    const rows = crmRows(output);
    const transitions = rows.map((r) => r.access).filter((a, i, all) => i === 0 || a !== all[i - 1]);
    expect(transitions, output).toEqual(['yes', 'blocked', 'yes']);
    const blocked = rows.filter((r) => r.access === 'blocked');
    for (const row of blocked) expect(row.rest).toContain(join(demo, 'sensor'));
    console.log(`README walkthrough: ${blocks.length} blocks ran in ${seconds} s`);
  }, 120_000);
});
