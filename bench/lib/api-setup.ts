/**
 * Building a bench scenario through the controller's own management and client APIs (the small ones; the
 * large data sets of the scaling benches are seeded through the store, see seed-store.ts).
 */
import { generate } from 'otplib';
import { Api, CLIENT, MGMT, createUser } from '../../test/helpers/api.js';

export { Api, CLIENT, MGMT };

export async function created(
  admin: Api,
  collection: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await admin.post(`${MGMT}/${collection}`, body);
  if (res.status !== 201)
    throw new Error(`POST ${collection} failed (${res.status}): ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** Facts the bench's simulated agents report, and checks that they pass. Nothing here depends on the machine. */
export const BENCH_DEVICE = {
  os: { type: 'Linux', version: '6.8.0', build: '' },
  mac: 'aa:bb:cc:00:00:01',
  domain: 'bench.example',
  processes: [
    { path: '/opt/bench/agent-a', hash: 'a'.repeat(64) },
    { path: '/opt/bench/agent-b', hash: 'b'.repeat(64) },
  ],
};

export interface MixedChecks {
  os: string;
  mac: string;
  domain: string;
  processMulti: string;
  mfa: string;
}

/** Five checks of five types (OS, MAC, DOMAIN, PROCESS_MULTI, MFA) that BENCH_DEVICE passes once TOTP is in. */
export async function mixedChecks(admin: Api, prefix: string): Promise<MixedChecks> {
  const d = BENCH_DEVICE;
  return {
    os: await created(admin, 'posture-checks', {
      name: `${prefix}-os`,
      typeId: 'OS',
      operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }],
    }),
    mac: await created(admin, 'posture-checks', {
      name: `${prefix}-mac`,
      typeId: 'MAC',
      macAddresses: [d.mac],
    }),
    domain: await created(admin, 'posture-checks', {
      name: `${prefix}-domain`,
      typeId: 'DOMAIN',
      domains: [d.domain],
    }),
    processMulti: await created(admin, 'posture-checks', {
      name: `${prefix}-processes`,
      typeId: 'PROCESS_MULTI',
      semantic: 'AllOf',
      processes: d.processes.map((p) => ({ osType: 'Linux', path: p.path, hashes: [p.hash] })),
    }),
    mfa: await created(admin, 'posture-checks', { name: `${prefix}-mfa`, typeId: 'MFA', timeoutSeconds: -1 }),
  };
}

/** The five-item bulk posture response an agent sends for `mixedChecks` (OS, MAC, DOMAIN, two processes). */
export function bulkResponse(checks: MixedChecks): unknown[] {
  const d = BENCH_DEVICE;
  return [
    { id: checks.os, typeId: 'OS', ...d.os },
    { id: checks.mac, typeId: 'MAC', macAddresses: [d.mac] },
    { id: checks.domain, typeId: 'DOMAIN', domain: d.domain },
    ...d.processes.map((p) => ({
      id: checks.processMulti,
      typeId: 'PROCESS',
      path: p.path,
      isRunning: true,
      hash: p.hash,
      signerFingerprints: [],
    })),
  ];
}

/** A new user logged in on the client API with a Postern sdkInfo (so MFA timeouts apply to it). */
export async function clientUser(
  admin: Api,
  name: string,
  attributes: string[],
): Promise<{ id: string; api: Api; apiSessionId: string }> {
  const id = await createUser(admin, name, 'bench-password', { roleAttributes: attributes });
  const api = new Api(admin.baseUrl);
  const res = await api.request('POST', `${CLIENT}/authenticate?method=password`, {
    username: name,
    password: 'bench-password',
    sdkInfo: { type: 'postern-bench', version: '0.1.0' },
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  api.token = res.headers.get('zt-session') ?? undefined;
  return { id, api, apiSessionId: res.body.data.id as string };
}

/** Enrolls TOTP for the logged-in user and verifies it, which also passes MFA on this API session. */
export async function enrollTotp(api: Api): Promise<void> {
  const started = await api.post(`${CLIENT}/current-identity/mfa`, {});
  if (started.status !== 201)
    throw new Error(`MFA enroll failed: ${started.status} ${JSON.stringify(started.body)}`);
  const status = await api.get(`${CLIENT}/current-identity/mfa`);
  const secret = new URL(status.body.data.provisioningUrl as string).searchParams.get('secret')!;
  const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) });
  const verified = await api.post(`${CLIENT}/current-identity/mfa/verify`, { code });
  if (verified.status !== 200)
    throw new Error(`MFA verify failed: ${verified.status} ${JSON.stringify(verified.body)}`);
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function inBatches<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!, i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
