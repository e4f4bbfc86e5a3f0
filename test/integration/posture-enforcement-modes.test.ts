/**
 * A posture check's `enforcement` (Postern): the field on every check type (400s naming it, stored, shown,
 * PATCH replacing it whole), a report-only check that never refuses and never cuts a tunnel, and a warn check
 * that lets a failing device through, telling its user, until its deadline, and from then on refuses: the
 * live tunnel is cut within a second of the deadline, by the engine's own timer.
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
  startWorld,
  stopWorld,
  type User,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';

/** The requirement: a tunnel is cut within a second of the deadline. */
const CUT_WITHIN_MS = 1000;

describe('posture check enforcement modes', () => {
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

  const domainCheck = (tag: string, enforcement?: unknown) => ({
    name: `${tag}-strict`,
    typeId: 'DOMAIN',
    domains: ['other.example'],
    roleAttributes: [`${tag}-strict`],
    ...(enforcement === undefined ? {} : { enforcement }),
  });

  /** A live tunnel behind a passing DOMAIN check plus `strict`, a DOMAIN check the device fails. */
  const tunnelWithStrictCheck = async (enforcement: unknown) => {
    const tag = unique('enf');
    const strictId = await create(world.admin, 'posture-checks', domainCheck(tag, enforcement));
    const t = await openLiveTunnel(world, {
      tagPrefix: 'enf',
      bytes: 1024,
      echoPort: echo.port,
      router: async (url, fingerprint) => (h2 ??= await routerSession(url, fingerprint)),
      extraChecks: [`#${tag}-strict`],
    });
    return { ...t, strictId };
  };

  /** The posture query for `checkId` on the service, as the user's agent reads it. */
  const queryOf = async (user: User, serviceId: string, checkId: string) => {
    const res = await user.api.get(`${CLIENT}/services/${serviceId}`);
    expect(res.status).toBe(200);
    const sets = res.body.data.postureQueries as { postureQueries: Record<string, unknown>[] }[];
    return sets.flatMap((s) => s.postureQueries).find((q) => q.id === checkId)!;
  };

  /** The check's line of `/posture-check-status`. */
  const countsOf = async (checkId: string) => {
    const res = await world.admin.get(`${MGMT}/posture-check-status?limit=500`);
    expect(res.status).toBe(200);
    return res.body.data.find((c: { postureCheckId: string }) => c.postureCheckId === checkId)?.counts;
  };

  describe('the field', () => {
    const fieldOf = async (res: { status: number; body: { error?: { cause?: { field?: string } } } }) => {
      expect(res.status).toBe(400);
      return res.body.error?.cause?.field;
    };

    it('is shown on every check, enforce when not given', async () => {
      const tag = unique('enf');
      const id = await create(world.admin, 'posture-checks', domainCheck(tag));
      const got = await world.admin.get(`${MGMT}/posture-checks/${id}`);
      expect(got.body.data.enforcement).toEqual({ mode: 'enforce', enforceFrom: null });
      const mfa = await create(world.admin, 'posture-checks', { name: `${tag}-mfa`, typeId: 'MFA' });
      expect((await world.admin.get(`${MGMT}/posture-checks/${mfa}`)).body.data.enforcement).toEqual({
        mode: 'enforce',
        enforceFrom: null,
      });
    });

    it('refuses a bad value naming the field, and stores nothing', async () => {
      const tag = unique('enf');
      const cases: [unknown, string][] = [
        [{ mode: 'warn' }, 'enforcement.enforceFrom'],
        [{ mode: 'warn', enforceFrom: 'next tuesday' }, 'enforcement.enforceFrom'],
        [{ mode: 'report-only', enforceFrom: '2030-01-01T00:00:00Z' }, 'enforcement.enforceFrom'],
        [{ mode: 'block' }, 'enforcement.mode'],
        [{ mode: 'enforce', until: 'x' }, 'enforcement.until'],
        ['warn', 'enforcement'],
      ];
      for (const [enforcement, field] of cases) {
        const res = await world.admin.post(`${MGMT}/posture-checks`, domainCheck(tag, enforcement));
        expect(await fieldOf(res), JSON.stringify(enforcement)).toBe(field);
      }
      const listed = await world.admin.get(
        `${MGMT}/posture-checks?filter=${encodeURIComponent(`name = "${tag}-strict"`)}`,
      );
      expect(listed.body.meta.pagination.totalCount).toBe(0);
    });

    it('is replaced whole by a PATCH, kept by a PATCH without it, reset by a PUT without it', async () => {
      const tag = unique('enf');
      const warn = { mode: 'warn', enforceFrom: '2030-03-03T09:00:00.000Z' };
      const id = await create(world.admin, 'posture-checks', domainCheck(tag, warn));
      const url = `${MGMT}/posture-checks/${id}`;
      expect((await world.admin.get(url)).body.data.enforcement).toEqual(warn);
      expect((await world.admin.patch(url, { domains: ['x.example'] })).status).toBe(200);
      expect((await world.admin.get(url)).body.data.enforcement).toEqual(warn);
      expect((await world.admin.patch(url, { enforcement: { mode: 'report-only' } })).status).toBe(200);
      expect((await world.admin.get(url)).body.data.enforcement).toEqual({
        mode: 'report-only',
        enforceFrom: null,
      });
      // A bad PATCH changes nothing.
      await fieldOf(await world.admin.patch(url, { enforcement: { mode: 'warn' } }));
      expect((await world.admin.get(url)).body.data.enforcement.mode).toBe('report-only');
      expect((await world.admin.put(url, domainCheck(tag))).status).toBe(200);
      expect((await world.admin.get(url)).body.data.enforcement).toEqual({
        mode: 'enforce',
        enforceFrom: null,
      });
    });
  });

  it('report-only never refuses and never cuts the tunnel; the user is not told', async () => {
    const t = await tunnelWithStrictCheck({ mode: 'report-only' });
    // The device fails the check, yet dialled (openLiveTunnel did); its query reads as a plain pass.
    const query = await queryOf(t.user, t.serviceId, t.strictId);
    expect(query.isPassing).toBe(true);
    expect(query).not.toHaveProperty('reason');
    expect(query).not.toHaveProperty('warning');
    // A new report (a re-evaluation) leaves the tunnel working.
    const reported = await t.user.api.post(`${CLIENT}/posture-response`, {
      id: t.checkId,
      typeId: 'DOMAIN',
      domain: 'corp.example',
    });
    expect(reported.status).toBe(201);
    expect(t.stream.closed).toBe(false);
    expect((await t.user.api.get(`${CLIENT}/sessions/${t.session.id}`)).status).toBe(200);
    expect((await t.user.api.post(`${CLIENT}/sessions`, { serviceId: t.serviceId })).status).toBeLessThan(
      300,
    );
    // Recorded for the administrator: who would have been refused, with actual vs expected, since when.
    const devicesUrl = `${MGMT}/posture-checks/${t.strictId}/devices`;
    const wouldFail = await world.admin.get(
      `${devicesUrl}?filter=${encodeURIComponent('state = "would-fail"')}`,
    );
    expect(wouldFail.status).toBe(200);
    expect(wouldFail.body.data).toEqual([
      expect.objectContaining({
        identityId: t.user.id,
        identityName: t.user.name,
        state: 'would-fail',
        actualValue: 'corp.example',
        expectedValue: ['other.example'],
        reason: expect.any(String),
      }),
    ]);
    const since = wouldFail.body.data[0].since;
    expect(await countsOf(t.strictId)).toEqual({
      passing: 0,
      wouldFail: 1,
      warned: 0,
      excepted: 0,
      failing: 0,
    });
    // The passing check's row is there too, and a filter cannot reach past the check's own rows.
    const passing = await world.admin.get(`${MGMT}/posture-checks/${t.checkId}/devices`);
    expect(passing.body.data.map((d: { state: string }) => d.state)).toEqual(['passing']);
    const widened = await world.admin.get(
      `${devicesUrl}?filter=${encodeURIComponent('state = "x" or true')}`,
    );
    expect(
      widened.status === 400 ||
        widened.body.data.every((d: { identityId: string }) => d.identityId === t.user.id),
    ).toBe(true);

    // Enforced, the same check refuses and cuts.
    const cut = closedWithin(t.stream);
    const res = await world.admin.patch(`${MGMT}/posture-checks/${t.strictId}`, {
      enforcement: { mode: 'enforce' },
    });
    expect(res.status).toBe(200);
    expect(await cut).toBeLessThan(CUT_WITHIN_MS);
    // The state moved (a new `since`); an evaluation that changes nothing leaves it as it was.
    const failing = (await world.admin.get(devicesUrl)).body.data[0];
    expect(failing.state).toBe('failing');
    expect(failing.since > since).toBe(true);
    await t.user.api.post(`${CLIENT}/posture-response`, {
      id: t.checkId,
      typeId: 'DOMAIN',
      domain: 'corp.example',
    });
    expect((await world.admin.get(devicesUrl)).body.data[0].since).toBe(failing.since);
  });

  it('warn lets the device through, says until when, and cuts the tunnel within a second of the deadline', async () => {
    const enforceFrom = new Date(Date.now() + 5000);
    const t = await tunnelWithStrictCheck({ mode: 'warn', enforceFrom: enforceFrom.toISOString() });
    const query = await queryOf(t.user, t.serviceId, t.strictId);
    expect(query.isPassing).toBe(true);
    expect(query.warning).toEqual({ enforceFrom: enforceFrom.toISOString() });
    expect((query.reason as { code: string }).code).toBeTruthy();
    expect(await countsOf(t.strictId)).toMatchObject({ warned: 1, failing: 0 });

    // Bounded: a tunnel nobody cuts fails here, not at the test's timeout.
    const cut = await Promise.race([
      closedWithin(t.stream).then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), enforceFrom.getTime() - Date.now() + 5000)),
    ]);
    expect(cut, 'the tunnel outlived the deadline').toBe(true);
    const late = Date.now() - enforceFrom.getTime();
    // Not before the deadline (a timer may fire a few ms early and re-arm), within a second after it.
    expect(late).toBeGreaterThanOrEqual(-50);
    expect(late).toBeLessThan(CUT_WITHIN_MS);
    const refused = await t.user.api.post(`${CLIENT}/sessions`, { serviceId: t.serviceId });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body.error)).toContain(t.strictId);
    const after = await queryOf(t.user, t.serviceId, t.strictId);
    expect(after.isPassing).toBe(false);
    expect(after).not.toHaveProperty('warning');
  });
});
