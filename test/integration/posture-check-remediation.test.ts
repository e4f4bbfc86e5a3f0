/**
 * A posture check's `remediation`: the administrator's advice, stored as written, answered on the check,
 * changed by PATCH and cleared by null; text a person cannot read safely (control or formatting characters)
 * or too long is refused naming the field, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MGMT, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { adminApi } from '../helpers/agent-setup.js';

let controller: TestController;
let admin: Api;

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
});

afterAll(async () => {
  await controller?.dispose();
});

const mac = (extra: Record<string, unknown>) => ({
  typeId: 'MAC',
  name: `nic-${Math.random().toString(36).slice(2, 8)}`,
  macAddresses: ['AA-BB-CC-DD-EE-FF'],
  ...extra,
});

describe('posture check remediation', () => {
  it('is stored as written, changed by PATCH and cleared by null', async () => {
    const advice = 'Dock your laptop at your desk; help: https://it.example/dock';
    const created = await admin.post(`${MGMT}/posture-checks`, mac({ remediation: advice }));
    expect(created.status).toBe(201);
    const url = `${MGMT}/posture-checks/${created.body.data.id}`;
    expect((await admin.get(url)).body.data.remediation).toBe(advice);

    expect((await admin.patch(url, { remediation: 'Call the help desk.' })).status).toBe(200);
    expect((await admin.get(url)).body.data.remediation).toBe('Call the help desk.');
    expect((await admin.patch(url, { name: 'renamed-nic' })).status).toBe(200);
    expect((await admin.get(url)).body.data.remediation).toBe('Call the help desk.');
    expect((await admin.patch(url, { remediation: null })).status).toBe(200);
    expect((await admin.get(url)).body.data.remediation).toBeNull();
  });

  it.each([
    ['a control character', 'Click\u0007 here'],
    ['a formatting character that reorders text', 'Visit \u202eexe.evil'],
    ['more than 1,000 characters', 'x'.repeat(1001)],
    ['a number', 42],
  ])('refuses %s, naming the field, and stores nothing', async (_what, remediation) => {
    const body = mac({ remediation });
    const refused = await admin.post(`${MGMT}/posture-checks`, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('COULD_NOT_VALIDATE');
    expect(JSON.stringify(refused.body.error)).toContain('remediation');
    const listed = await admin.get(
      `${MGMT}/posture-checks?filter=${encodeURIComponent(`name = "${body.name}"`)}`,
    );
    expect(listed.body.data).toEqual([]);
  });
});
