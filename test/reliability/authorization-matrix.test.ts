/**
 * The authorization matrix: every documented operation, called by no session, a partial session (TOTP
 * owed), a client session, another identity's session (for per-identity resources) and an administrator,
 * must answer exactly the status in reliability-auth-table.ts. The table must list exactly the operations
 * of /openapi.json, so a new route without an entry fails here until someone decides who may call it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../helpers/controller.js';
import { ResponseSchemas } from '../helpers/openapi-check.js';
import { MATRIX, type MatrixRow } from '../helpers/reliability-auth-table.js';
import { AuthWorld, CALLERS, type Who } from '../helpers/reliability-auth-world.js';

let tc: TestController;
let world: AuthWorld;

beforeAll(async () => {
  tc = await startTestController();
  world = await AuthWorld.start(tc.url);
});

afterAll(async () => {
  await tc?.dispose();
});

/** Makes `who`'s request for the row; `beforeSend` runs once the request is prepared (its fixtures exist). */
async function call(
  key: string,
  row: MatrixRow,
  who: Who,
  beforeSend: () => Promise<void>,
): Promise<{ status: number; body: unknown }> {
  const method = key.split(' ')[0]!;
  const token =
    row.fresh?.includes(who) && who !== 'none' ? (await world.newCaller(who)).token : world.token(who);
  const req = await row.request(world, who);
  await beforeSend();
  const headers: Record<string, string> = { ...req.headers };
  if (token) headers['zt-session'] = token;
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(tc.url + req.path, {
    method,
    headers,
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
  });
  // An event stream never ends by itself: its status and first headers are the answer.
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, body: '' };
  }
  const text = await res.text();
  return {
    status: res.status,
    body: (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text,
  };
}

describe('authorization matrix', () => {
  it('lists exactly the documented operations', async () => {
    const documented = (await ResponseSchemas.load(tc.url)).operations().sort();
    expect(Object.keys(MATRIX).sort()).toEqual(documented);
  });

  for (const [key, row] of Object.entries(MATRIX)) {
    it(key, async () => {
      // Compared as a whole, so a failure shows every caller's answer at once (with the body when wrong).
      const seen: Record<string, unknown> = {};
      const wanted: Record<string, unknown> = {};
      for (const who of CALLERS) {
        const expected = row.expect[who as keyof MatrixRow['expect']];
        if (expected === undefined) continue;
        let before: Awaited<ReturnType<AuthWorld['clientIntact']>> | undefined;
        const res = await call(key, row, who, async () => {
          if (who === 'other' && row.intactAfterOther) before = await world.clientIntact();
        });
        seen[who] = res.status;
        wanted[who] = expected;
        if (res.status !== expected) seen[`${who} body`] = JSON.stringify(res.body).slice(0, 200);
        if (before)
          expect(
            await world.clientIntact(),
            `${key}: another identity changed the client's resources`,
          ).toEqual(before);
      }
      expect(seen).toEqual(wanted);
    });
  }
});
