/**
 * Load: 500 simulated agents (one API session each) report OS and MAC posture every 2-4 s for a bounded
 * period against the controller CLI in a child process, also listing services and asking for sessions,
 * while an administrator keeps changing the OS check's version range, the MAC check's address list and
 * which checks the MAC policy requires. Afterwards:
 * - no request failed (no 5xx, no connection error) and every admin change was accepted;
 * - no posture data was lost: each identity's stored OS version and MAC are its agent's last acknowledged report;
 * - access decisions match the final state: each agent's service list, the edge sessions it still holds, and
 *   a new session request for each guarded service agree with what the final checks say about its last report.
 * POSTERN_LOAD_SECONDS (default 30) sets the period; POSTERN_LOAD_AGENTS (default 500) the number of agents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT, type ApiResponse } from '../helpers/api.js';
import { LoadWorld, macOf, type SimAgent } from '../helpers/reliability-load-world.js';

const AGENTS = Number(process.env.POSTERN_LOAD_AGENTS ?? 500);
const SECONDS = Number(process.env.POSTERN_LOAD_SECONDS ?? 30);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let world: LoadWorld;
const errors: string[] = [];
const lastReported = new Map<number, string>();
/** The final state as the administrator last had it acknowledged. */
const final = { minMinor: 0, macs: new Set<number>([0]), macPolicyNeedsOs: false };

beforeAll(async () => {
  world = await LoadWorld.start(AGENTS);
}, 120_000);

afterAll(async () => {
  await world?.dispose();
});

/** Runs a request, recording anything but the expected statuses (a thrown fetch is a connection error). */
async function expectStatus(
  what: string,
  call: Promise<ApiResponse>,
  ok: number[],
): Promise<ApiResponse | undefined> {
  try {
    const res = await call;
    if (!ok.includes(res.status))
      errors.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    return res;
  } catch (error) {
    errors.push(`${what}: ${(error as Error).message}`);
    return undefined;
  }
}

async function runAgent(agent: SimAgent, until: number): Promise<void> {
  await sleep(Math.random() * 3_000);
  for (let round = 0; Date.now() < until; round++) {
    const version = `5.${agent.index}.${round}`;
    const body = [
      { id: world.ids.osCheck, typeId: 'OS', type: 'Linux', version },
      { id: world.ids.macCheck, typeId: 'MAC', macAddresses: [agent.mac] },
    ];
    const sent = await expectStatus(
      `agent ${agent.index} report`,
      agent.api.post(`${CLIENT}/posture-response-bulk`, body),
      [201],
    );
    if (sent?.status === 201) lastReported.set(agent.index, version);
    if (round % 3 === 1) {
      await expectStatus(
        `agent ${agent.index} services`,
        agent.api.get(`${CLIENT}/services?limit=500`),
        [200],
      );
      await expectStatus(
        `agent ${agent.index} session`,
        agent.api.post(`${CLIENT}/sessions`, { serviceId: world.ids.osService }),
        [201, 409],
      );
    }
    await sleep(2_000 + Math.random() * 2_000);
  }
}

async function runAdmin(until: number): Promise<number> {
  let changes = 0;
  for (let step = 1; Date.now() < until; step++) {
    const minMinor = Math.floor(Math.random() * AGENTS);
    const macs = new Set(
      Array.from({ length: AGENTS }, (_, i) => i)
        .filter((i) => (i + step) % 3 === 0)
        .slice(0, 250),
    );
    const needsOs = step % 2 === 0;
    const os = await expectStatus(
      'admin os check',
      world.admin.patch(`${MGMT}/posture-checks/${world.ids.osCheck}`, {
        operatingSystems: [{ type: 'Linux', versions: [`>=5.${minMinor}.0`] }],
      }),
      [200],
    );
    if (os?.status === 200) final.minMinor = minMinor;
    const mac = await expectStatus(
      'admin mac check',
      world.admin.patch(`${MGMT}/posture-checks/${world.ids.macCheck}`, {
        macAddresses: [...macs].map(macOf),
      }),
      [200],
    );
    if (mac?.status === 200) final.macs = macs;
    const roles = needsOs ? [`@${world.ids.macCheck}`, `@${world.ids.osCheck}`] : [`@${world.ids.macCheck}`];
    const policy = await expectStatus(
      'admin mac policy',
      world.admin.patch(`${MGMT}/service-policies/${world.ids.macPolicy}`, { postureCheckRoles: roles }),
      [200],
    );
    if (policy?.status === 200) final.macPolicyNeedsOs = needsOs;
    changes += 3;
    await sleep(1_000 + Math.random() * 1_000);
  }
  return changes;
}

const osPasses = (i: number) => i >= final.minMinor;
const macPasses = (i: number) => final.macs.has(i) && (!final.macPolicyNeedsOs || osPasses(i));
const granted = (service: { postureQueries?: { policyType: string; isPassing: boolean }[] } | undefined) =>
  (service?.postureQueries ?? []).some((p) => p.policyType === 'Dial' && p.isPassing);

describe(`${AGENTS} agents reporting while policies change`, () => {
  it('loses nothing, fails nothing and decides access by the final state', async () => {
    const until = Date.now() + SECONDS * 1000;
    const [changes] = await Promise.all([runAdmin(until), ...world.agents.map((a) => runAgent(a, until))]);
    expect(errors.slice(0, 20), `${errors.length} failed requests`).toEqual([]);
    expect(changes).toBeGreaterThan(0);
    expect(lastReported.size).toBe(AGENTS);

    const wrong: string[] = [];
    for (const agent of world.agents) {
      const i = agent.index;
      const data = (await world.admin.get(`${MGMT}/identities/${agent.identityId}/posture-data`)).body.data;
      if (data.os.version !== lastReported.get(i))
        wrong.push(`agent ${i}: stored OS ${data.os.version}, last reported ${lastReported.get(i)}`);
      if (JSON.stringify(data.mac.addresses) !== JSON.stringify([agent.mac.replaceAll(':', '')]))
        wrong.push(`agent ${i}: stored MAC ${JSON.stringify(data.mac.addresses)}`);

      const services = (await agent.api.get(`${CLIENT}/services?limit=500`)).body.data as {
        id: string;
        postureQueries?: { policyType: string; isPassing: boolean }[];
      }[];
      const byId = (id: string) => services.find((s) => s.id === id);
      if (granted(byId(world.ids.osService)) !== osPasses(i))
        wrong.push(`agent ${i}: os service listed ${granted(byId(world.ids.osService))}`);
      if (granted(byId(world.ids.macService)) !== macPasses(i))
        wrong.push(`agent ${i}: mac service listed ${granted(byId(world.ids.macService))}`);
      if (!granted(byId(world.ids.openService))) wrong.push(`agent ${i}: open service not granted`);

      // A session the final state no longer allows must have been revoked.
      const held = (await agent.api.get(`${CLIENT}/sessions?limit=500`)).body.data as { serviceId: string }[];
      if (held.some((s) => s.serviceId === world.ids.osService) && !osPasses(i))
        wrong.push(`agent ${i}: still holds an os-service session`);
      for (const [serviceId, expected] of [
        [world.ids.osService, osPasses(i)],
        [world.ids.macService, macPasses(i)],
      ] as const) {
        const res = await agent.api.post(`${CLIENT}/sessions`, { serviceId });
        if (res.status !== (expected ? 201 : 409))
          wrong.push(
            `agent ${i}: session for ${serviceId} answered ${res.status}, expected ${expected ? 201 : 409}`,
          );
      }
    }
    expect(wrong.slice(0, 20), `${wrong.length} inconsistencies`).toEqual([]);
  }, 240_000);
});
