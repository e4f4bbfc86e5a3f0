/**
 * MFA timeout enforcement: how long after an API session's TOTP pass expires its edge session is removed,
 * over 1000 API sessions whose passes (and so expiries) are staggered across a few seconds.
 *
 * In-process controller: the passes are driven with `ctx.events.publish('mfa.passed', apiSessionId,
 * identityId)` (resolved once the listeners have stored the pass), the event POST /authenticate/mfa emits after
 * a good code (1000 real TOTP logins would cost 1000 scrypt password checks plus a 30 s wait per
 * replay-protected code step), and the removal moment is taken from the store's own `deleteMany` as the engine
 * calls it. Edge sessions are requested over real HTTP.
 */
import { rmSync } from 'node:fs';
import { startController } from '../controller/composition/start-controller.js';
import { createApiSession } from '../controller/auth/api-sessions.js';
import { defaultConfig } from '../controller/config.js';
import type { Identity } from '../controller/model.js';
import { Api, CLIENT, created, inBatches } from './lib/api-setup.js';
import { ADMIN_PASSWORD, adminOf, tempDir } from './lib/children.js';
import { figure, median, percentile, type Figure } from './lib/figure.js';
import type { BenchOptions } from './lib/options.js';
import { sleep } from './lib/proc-stats.js';

const SESSIONS = 1000;

export async function mfaTimeoutFigures(options: BenchOptions): Promise<Figure[]> {
  const timeoutSeconds = options.quick ? 6 : 10;
  const spreadMs = options.quick ? 3_000 : 5_000;
  const dataDir = tempDir('postern-bench-mfa-');
  const controller = await startController(
    { ...defaultConfig(dataDir), port: 0, logLevel: 'silent' },
    { adminPassword: ADMIN_PASSWORD },
  );
  try {
    const { ctx } = controller;
    const admin = await adminOf(controller.url);
    const checkId = await created(admin, 'posture-checks', {
      name: 'bench-mfa',
      typeId: 'MFA',
      timeoutSeconds,
    });
    const serviceId = await created(admin, 'services', { name: 'bench-mfa-service' });
    await created(admin, 'service-policies', {
      name: 'bench-mfa-policy',
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: ['#mfa-bench'],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`@${checkId}`],
    });

    // 1000 identities with one API session each, made the way a password login makes them.
    const sessions: { identityId: string; apiSessionId: string; api: Api }[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const now = new Date();
      const identity: Identity = {
        id: `mfa-bench-${i}`,
        name: `mfa-bench-${i}`,
        type: 'User',
        isAdmin: false,
        isDefaultAdmin: false,
        roleAttributes: ['mfa-bench'],
        authPolicyId: 'default',
        externalId: null,
        disabled: false,
        tags: {},
        createdAt: now,
        updatedAt: now,
      };
      await ctx.store.identities.create(identity);
      const { session, token } = await createApiSession(ctx, {
        identity,
        authenticatorId: 'bench',
        ipAddress: '127.0.0.1',
        envInfo: {},
        sdkInfo: { type: 'postern-bench', version: '0.1.0' },
        configTypes: [],
      });
      sessions.push({
        identityId: identity.id,
        apiSessionId: session.id,
        api: new Api(controller.url, token),
      });
    }

    // The engine revokes through this very object (the store's asynchronous face, a plain object of methods).
    const removedAt = new Map<string, number>();
    const repo = ctx.store.posture.sessions as {
      -readonly [K in keyof typeof ctx.store.posture.sessions]: (typeof ctx.store.posture.sessions)[K];
    };
    const deleteMany = repo.deleteMany.bind(repo);
    repo.deleteMany = async (ids) => {
      const removed = await deleteMany(ids);
      const now = Date.now();
      for (const id of removed) removedAt.set(id, now);
      return removed;
    };

    // Stagger the passes across `spreadMs`; each session then asks for its edge session over HTTP.
    const start = Date.now();
    const edge = await inBatches(sessions, 20, async (s, i) => {
      const wait = start + (i * spreadMs) / SESSIONS - Date.now();
      if (wait > 0) await sleep(wait);
      await ctx.events.publish('mfa.passed', s.apiSessionId, s.identityId);
      const res = await s.api.post(`${CLIENT}/sessions`, { serviceId, type: 'Dial' });
      if (res.status !== 201) throw new Error(`session refused: ${res.status} ${JSON.stringify(res.body)}`);
      const passedAt = (await ctx.store.posture.data.load(s.identityId)).apiSessions[s.apiSessionId]!
        .mfaPassedAt!;
      return { sessionId: res.body.data.id as string, expiresAt: passedAt.getTime() + timeoutSeconds * 1000 };
    });
    const createdBy = Date.now() - start;
    if (createdBy > timeoutSeconds * 1000)
      throw new Error(`setup took ${createdBy} ms, longer than the timeout: raise timeoutSeconds`);

    const deadline = start + spreadMs + timeoutSeconds * 1000 + 15_000;
    while (removedAt.size < SESSIONS && Date.now() < deadline) await sleep(100);
    const latencies = edge
      .filter((e) => removedAt.has(e.sessionId))
      .map((e) => removedAt.get(e.sessionId)! - e.expiresAt);
    const missing = SESSIONS - latencies.length;
    const p99 = missing > 0 ? Number.POSITIVE_INFINITY : percentile(latencies, 99);
    return [
      figure({
        name: 'mfa-timeout.p99',
        label: `MFA timeout enforcement, ${SESSIONS} sessions (p99 expiry to removal)`,
        value: p99,
        unit: 'ms',
        target: { valueMax: 1000 },
        note:
          `timeout ${timeoutSeconds} s, passes staggered over ${spreadMs / 1000} s; median ${median(latencies).toFixed(1)} ms, ` +
          `max ${Math.max(...latencies).toFixed(1)} ms, ${missing} not removed; in-process controller, passes published as 'mfa.passed' events`,
      }),
    ];
  } finally {
    await controller.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
