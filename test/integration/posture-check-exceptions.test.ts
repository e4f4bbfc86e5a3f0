/**
 * Posture check exceptions (Postern): the management API (400 naming the field and nothing stored, 409 for a
 * second active exception with the same target and check, who granted and changed it, the filter grammar,
 * the history of grants, changes, deletions and expiries), and what one does: a device failing the check
 * keeps its tunnel while the exception is active, is told until when, and is cut within a second of the
 * expiry, not before.
 */
import type { ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT } from '../helpers/api.js';
import {
  closeServer,
  closedWithin,
  create,
  echoServer,
  openLiveTunnel,
  routerSession,
  signedInUser,
  startWorld,
  stopWorld,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';

const CUT_WITHIN_MS = 1000;
const URL = `${MGMT}/posture-check-exceptions`;
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const DAY_MS = 24 * 3600 * 1000;

describe('posture check exceptions', () => {
  let world: World;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let h2: ClientHttp2Session;

  beforeAll(async () => {
    world = await startWorld();
    echo = await echoServer();
  });
  afterAll(async () => {
    h2?.destroy();
    await closeServer(echo.server, echo.sockets);
    await stopWorld(world);
  });

  const count = async () =>
    (await world.admin.get(`${URL}?limit=1`)).body.meta.pagination.totalCount as number;
  const history = async (id: string) => {
    const res = await world.admin.get(`${URL}/${id}/history`);
    expect(res.status).toBe(200);
    return res.body.data as { action: string; by: { name: string } | null; expiresAt: string; at: string }[];
  };
  const newCheck = (tag: string) =>
    create(world.admin, 'posture-checks', {
      name: `${tag}-chk`,
      typeId: 'DOMAIN',
      domains: ['corp.example'],
    });

  it('refuses a bad write naming the field, and stores nothing', async () => {
    const tag = unique('exc');
    const user = await signedInUser(world, [`${tag}-user`]);
    const checkId = await newCheck(tag);
    const good = { identityId: user.id, postureCheckId: checkId, expiresAt: inMs(DAY_MS), reason: 'INC-1' };
    const before = await count();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, identityRoles: ['#x'] }, 'identityRoles'],
      [{ ...good, identityId: null }, 'identityId'],
      [{ ...good, identityId: 'no-such-identity' }, 'identityId'],
      [{ ...good, identityId: null, identityRoles: ['sales'] }, 'identityRoles[0]'],
      [{ ...good, postureCheckId: 'no-such-check' }, 'postureCheckId'],
      [{ ...good, expiresAt: inMs(-60_000) }, 'expiresAt'],
      [{ ...good, expiresAt: inMs(91 * DAY_MS) }, 'expiresAt'],
      [{ ...good, expiresAt: 'tomorrow' }, 'expiresAt'],
      [{ ...good, reason: '   ' }, 'reason'],
      [{ ...good, reason: 'x'.repeat(1001) }, 'reason'],
      [{ ...good, reason: undefined }, 'reason'],
      [{ ...good, colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await world.admin.post(URL, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.cause.field, JSON.stringify(body)).toBe(field);
    }
    expect(await count()).toBe(before);
    // At the limit is fine.
    expect((await world.admin.post(URL, { ...good, expiresAt: inMs(90 * DAY_MS - 60_000) })).status).toBe(
      201,
    );
  });

  it('shows who granted and changed it, refuses a second active one (409), filters, keeps its history', async () => {
    const tag = unique('exc');
    const user = await signedInUser(world, [`${tag}-user`]);
    const checkId = await newCheck(tag);
    const otherCheck = await newCheck(`${tag}-2`);
    const body = {
      identityId: user.id,
      postureCheckId: checkId,
      expiresAt: inMs(DAY_MS),
      reason: 'INC-2: new laptop',
    };
    const id = await create(world.admin, 'posture-check-exceptions', body);

    const got = (await world.admin.get(`${URL}/${id}`)).body.data;
    expect(got).toMatchObject({
      identityId: user.id,
      identityRoles: null,
      postureCheckId: checkId,
      reason: 'INC-2: new laptop',
      state: 'active',
      grantedBy: { name: 'Default Admin' },
      updatedBy: { name: 'Default Admin' },
    });

    const twin = await world.admin.post(URL, { ...body, reason: 'again' });
    expect(twin.status).toBe(409);
    expect(twin.body.error.code).toBe('CONFLICT');
    // Another check, or every check, is another exception.
    const other = await create(world.admin, 'posture-check-exceptions', {
      ...body,
      postureCheckId: otherCheck,
    });
    expect((await world.admin.post(URL, { ...body, postureCheckId: null })).status).toBe(201);
    // A change into a conflict is refused too, and changes nothing.
    expect((await world.admin.patch(`${URL}/${other}`, { postureCheckId: checkId })).status).toBe(409);
    expect((await world.admin.get(`${URL}/${other}`)).body.data.postureCheckId).toBe(otherCheck);

    const filtered = await world.admin.get(
      `${URL}?filter=${encodeURIComponent(`identityId = "${user.id}" and postureCheckId = "${checkId}"`)}`,
    );
    expect(filtered.body.data.map((e: { id: string }) => e.id)).toEqual([id]);

    const newExpiry = inMs(2 * DAY_MS);
    expect(
      (await world.admin.patch(`${URL}/${id}`, { expiresAt: newExpiry, reason: 'INC-2: delayed' })).status,
    ).toBe(200);
    expect((await world.admin.delete(`${URL}/${id}`)).status).toBe(200);
    expect((await world.admin.get(`${URL}/${id}`)).status).toBe(404);
    const entries = await history(id);
    expect(entries.map((e) => [e.action, e.by?.name ?? null])).toEqual([
      ['granted', 'Default Admin'],
      ['changed', 'Default Admin'],
      ['deleted', 'Default Admin'],
    ]);
    expect(entries[1]!.expiresAt).toBe(newExpiry);
    expect((await world.admin.get(`${URL}/never-was/history`)).status).toBe(404);
  });

  it('lets a failing device through until its expiry, tells its user, and not a second longer', async () => {
    const t = await openLiveTunnel(world, {
      tagPrefix: 'exc',
      bytes: 1024,
      echoPort: echo.port,
      router: async (url, fingerprint) => (h2 ??= await routerSession(url, fingerprint)),
    });
    const expiresAt = new Date(Date.now() + 5000);
    const id = await create(world.admin, 'posture-check-exceptions', {
      identityRoles: [`#${t.tag}-user`],
      postureCheckId: t.checkId,
      expiresAt: expiresAt.toISOString(),
      reason: 'INC-3: domain join pending',
    });
    // The device now fails the check: the exception keeps it in.
    const reported = await t.user.api.post(`${CLIENT}/posture-response`, {
      id: t.checkId,
      typeId: 'DOMAIN',
      domain: 'elsewhere.example',
    });
    expect(reported.status).toBe(201);
    expect(t.stream.closed).toBe(false);
    const services = await t.user.api.get(`${CLIENT}/services/${t.serviceId}`);
    const query = services.body.data.postureQueries[0].postureQueries.find(
      (q: { id: string }) => q.id === t.checkId,
    );
    expect(query.isPassing).toBe(true);
    expect(query.exception).toEqual({ expiresAt: expiresAt.toISOString() });
    expect(query.reason.code).toBeTruthy();

    const cut = await Promise.race([
      closedWithin(t.stream).then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), expiresAt.getTime() - Date.now() + 5000)),
    ]);
    expect(cut, 'the tunnel outlived the exception').toBe(true);
    const late = Date.now() - expiresAt.getTime();
    expect(late).toBeGreaterThanOrEqual(-50);
    expect(late).toBeLessThan(CUT_WITHIN_MS);
    expect((await t.user.api.post(`${CLIENT}/sessions`, { serviceId: t.serviceId })).status).toBe(409);

    // Kept as a record, expired; the expiry is in its history, by nobody, dated at the expiry.
    expect((await world.admin.get(`${URL}/${id}`)).body.data.state).toBe('expired');
    const entries = await history(id);
    expect(entries.map((e) => [e.action, e.by])).toEqual([
      ['granted', expect.objectContaining({ name: 'Default Admin' })],
      ['expired', null],
    ]);
    expect(entries[1]!.at).toBe(expiresAt.toISOString());
    // Reading it again records nothing more.
    expect(await history(id)).toHaveLength(2);
  });
});
