/**
 * Runs a Markdown page's walkthrough verbatim, as a reader would paste it: the fenced blocks whose info string
 * is exactly `sh walkthrough`, in page order, concatenated into ONE bash process (`set -euo pipefail`) in its
 * own process group (ended when bash is done, background jobs included), a marker before each block so a
 * failure names its block. Used by the README's and docs/DATA-PLANE.md's walkthrough tests.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

export const REPO = join(import.meta.dirname, '..', '..');
export const MARK = '@@@ walkthrough';

export interface Block {
  /** 1-based line of the opening fence in the page, for the failure message */
  line: number;
  code: string;
}

/** The `sh walkthrough` fences of a Markdown text, in order. */
export function walkthroughBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let open: { info: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, index) => {
    if (!open) {
      const fence = /^```(.*)$/.exec(text);
      if (fence) open = { info: fence[1]!.trim(), line: index + 1, lines: [] };
    } else if (text.trim() === '```') {
      if (/^sh\s+walkthrough$/.test(open.info)) blocks.push({ line: open.line, code: open.lines.join('\n') });
      open = undefined;
    } else open.lines.push(text);
  });
  return blocks;
}

/** One script: a marker before each block so the output says which block a failure came from. */
export function scriptOf(blocks: Block[]): string {
  return [
    'set -euo pipefail',
    'exec 2>&1',
    // Whatever happens, leave no background job behind; the controller (whose npm does not pass signals on)
    // is ended with the whole process group by runBash.
    `trap 'status=$?; echo; echo "${MARK} exit $status"; kill $(jobs -p) 2>/dev/null || true; exit $status' EXIT`,
    ...blocks.flatMap((b, i) => [`echo "${MARK} block ${i}"`, b.code]),
    `echo "${MARK} done"`,
  ].join('\n');
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Run {
  exitCode: number | null;
  output: string;
}

/** Runs the script in its own process group, ending the group (controller included) when bash is done. */
export function runBash(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Run> {
  const child = spawn('bash', ['-c', script], {
    cwd: REPO,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const endGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is already empty
    }
  };
  const timer = setTimeout(() => {
    output += `\n(the walkthrough did not finish within ${timeoutMs / 1000} s)\n`;
    endGroup();
  }, timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      endGroup();
      resolve({ exitCode, output });
    });
  });
}

/** The output of each block, by the markers; the last entry is the block that was running at the end. */
export function outputsByBlock(output: string): Map<number, string> {
  const byBlock = new Map<number, string>();
  for (const part of output.split(`${MARK} block `).slice(1)) {
    const [, index = '', text = ''] = /^(\d+)\n([\s\S]*)$/.exec(part) ?? [];
    byBlock.set(Number(index), text);
  }
  return byBlock;
}

/**
 * A new user's shell under `root`: only PATH from here, so no POSTERN_*, npm_* or D-Bus setting leaks in, HOME
 * and the XDG folders inside it (nothing touches the real user's files or keychain), a scratch `DEMO` folder
 * and a free controller `PORT`.
 */
export async function newUserShell(root: string): Promise<NodeJS.ProcessEnv & { DEMO: string }> {
  const home = join(root, 'home');
  const demo = join(root, 'demo');
  for (const dir of [home, demo]) mkdirSync(dir, { recursive: true });
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: root,
    DEMO: demo,
    PORT: String(await freePort()),
  };
}
