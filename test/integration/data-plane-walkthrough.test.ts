/**
 * docs/DATA-PLANE.md's walkthrough for a second, standalone router is a test: its `sh walkthrough` blocks
 * (create the router, enroll it with its token, start it, see which router carries a service, stop it and
 * see the move) run here verbatim in one bash process, as README.md's do (markdown-walkthrough.ts). One
 * controller, loopback ports chosen free, a temporary HOME and scratch folder.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/controller.js';
import {
  newUserShell,
  freePort,
  MARK,
  outputsByBlock,
  REPO,
  runBash,
  scriptOf,
  walkthroughBlocks,
} from '../helpers/markdown-walkthrough.js';

const root = tempDir('postern-dataplane-doc-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('docs/DATA-PLANE.md walkthrough', () => {
  it('runs verbatim: a second router carries the service, and when it stops the embedded one does', async () => {
    const blocks = walkthroughBlocks(readFileSync(join(REPO, 'docs', 'DATA-PLANE.md'), 'utf8'));
    expect(blocks.length, 'docs/DATA-PLANE.md has `sh walkthrough` blocks').toBeGreaterThanOrEqual(5);
    const env = {
      ...(await newUserShell(root)),
      ROUTER_PORT: String(await freePort()),
      WEB_PORT: String(await freePort()),
    };
    const demo = env.DEMO;

    const { exitCode, output } = await runBash(scriptOf(blocks), env, 150_000);
    if (exitCode !== 0 || !output.includes(`${MARK} done`)) {
      const byBlock = outputsByBlock(output);
      const failed = Math.max(-1, ...byBlock.keys());
      const block = blocks[failed];
      const tail = (file: string) => {
        try {
          return readFileSync(join(demo, file), 'utf8').split('\n').slice(-15).join('\n');
        } catch {
          return '(none)';
        }
      };
      expect.fail(
        `docs/DATA-PLANE.md walkthrough block ${failed + 1} of ${blocks.length} (fence at line ` +
          `${block?.line}) failed, bash exit ${exitCode}:\n${block?.code}\n--- its output ---\n` +
          `${byBlock.get(failed)}\n--- agent.log ---\n${tail('agent.log')}\n--- edge-2.log ---\n` +
          `${tail('edge-2.log')}\n--- controller.log ---\n${tail('controller.log')}`,
      );
    }
    // The move, as the agent said it, in order.
    const agentLog = readFileSync(join(demo, 'agent.log'), 'utf8');
    const carried = [...agentLog.matchAll(/tunnel web: carried by (.*)/g)].map((m) => m[1]);
    expect(carried).toEqual(['edge-2', 'embedded-router (was edge-2)']);
  }, 180_000);
});
