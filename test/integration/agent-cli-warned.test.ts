/**
 * The headless CLI (a child process, as users run it) shows a service kept only by warn mode as its own
 * state, "warned", with the deadline and the fix, and one kept by an exception as reachable with "Exception
 * until …"; `--json` carries `access: "warned"`, `warnings[]` with `enforceFrom`, and `exceptionUntil`; and
 * `check` ("Check again") re-reads it like any other state. The controller is the client-API stand-in
 * answering GET /services as docs/AGENT.md's wire describes (`warning`, `exception` on a passing query).
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostureFailureReason } from '../../src/api/posture-reasons.js';
import type { ServiceDetail } from '../../src/api/services.js';
import { tempDir } from '../helpers/controller.js';
import { RecordingController, serviceWith } from '../helpers/desktop-recording-controller.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const configDir = tempDir('postern-cli-warned-');
const MARCH = '2027-03-03T09:00:00.000Z';
const APRIL = '2027-04-12T17:30:00.000Z';
const REMEDIATION = 'Update in System Settings';
let controller: RecordingController;

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--credential-store', 'memory', '--config-dir', configDir, ...args],
      // A fixed zone: the deadlines are printed in the user's own.
      { env: { ...process.env, POSTERN_PASSWORD: 'pw', TZ: 'UTC' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end();
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const oldMacos: PostureFailureReason = {
  code: 'OS_VERSION_OUT_OF_RANGE',
  osType: 'macOS',
  osVersion: '14.2.0',
  allowed: [{ type: 'macOS', versions: ['>=14.4.0'] }],
};

function services(): ServiceDetail[] {
  return [
    serviceWith('svc-wiki', 'wiki', [
      {
        queryType: 'OS',
        isPassing: true,
        reason: oldMacos,
        warning: { enforceFrom: MARCH },
        remediation: REMEDIATION,
      },
    ]),
    serviceWith('svc-crm', 'crm', [
      {
        queryType: 'PROCESS',
        isPassing: true,
        reason: { code: 'PROCESS_NOT_RUNNING', path: '/opt/edr/edrd' },
        exception: { expiresAt: APRIL },
      },
    ]),
    serviceWith('svc-git', 'git', [{ queryType: 'MAC', isPassing: true }]),
  ];
}

beforeAll(async () => {
  controller = await RecordingController.start();
  controller.setServices(services());
});

afterAll(async () => {
  await controller?.close();
  rmSync(configDir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('the warned state in the CLI', () => {
  it('the table says "warned" with the deadline and the fix, and the exception with its end', async () => {
    expect((await cli(['--controller', controller.url, 'login', 'alice'])).code).toBe(0);
    const run = await cli(['services']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SERVICE\s+ACCESS\s+WHAT TO FIX$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      ['crm', 'yes', 'Exception until 12 April 2027, 17:30: Start edrd (/opt/edr/edrd)'],
      ['git', 'yes'],
      ['wiki', 'warned', 'From 3 March 2027, 09:00: Update macOS to 14.4 or later (this device runs 14.2.0)'],
      ['', `Your administrator says: ${REMEDIATION}`],
    ]);
  });

  it('--json carries access "warned", the warnings with enforceFrom, and exceptionUntil', async () => {
    const run = await cli(['services', '--json']);
    expect(run.code).toBe(0);
    const list = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(list.find((s) => s.name === 'wiki')).toMatchObject({
      access: 'warned',
      failing: [],
      exceptionUntil: null,
      warnings: [
        {
          queryType: 'OS',
          code: 'OS_VERSION_OUT_OF_RANGE',
          enforceFrom: MARCH,
          explanation: 'Update macOS to 14.4 or later (this device runs 14.2.0)',
          remediation: REMEDIATION,
        },
      ],
    });
    expect(list.find((s) => s.name === 'crm')).toMatchObject({
      access: 'granted',
      warnings: [],
      exceptionUntil: APRIL,
      excepted: [{ queryType: 'PROCESS', expiresAt: APRIL, explanation: 'Start edrd (/opt/edr/edrd)' }],
    });
    expect(list.find((s) => s.name === 'git')).toMatchObject({ access: 'granted', exceptionUntil: null });
  });

  it('status counts a warned service as reachable and names its deadline', async () => {
    const json = await cli(['status', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      services: { total: 3, granted: 2, warned: 1, blocked: 0 },
    });
    const text = await cli(['status']);
    expect(text.stdout).toContain(
      'services    3 of 3 reachable (1 warned: blocked from 3 March 2027, 09:00 unless fixed)',
    );
  });

  it('"check" re-evaluates it like any other state: fixed, the warning is gone', async () => {
    const fixed = services();
    fixed[0]!.postureQueries[0]!.postureQueries[0] = {
      ...fixed[0]!.postureQueries[0]!.postureQueries[0]!,
      reason: undefined,
      warning: undefined,
    };
    controller.setServices(fixed);
    const run = await cli(['check', '--json']);
    expect(run.code).toBe(0);
    const { services: after } = JSON.parse(run.stdout) as { services: Record<string, unknown>[] };
    expect(after.find((s) => s.name === 'wiki')).toMatchObject({ access: 'granted', warnings: [] });
    expect(controller.requests.some((r) => r.path === '/posture-response-bulk')).toBe(true);
  });
});
