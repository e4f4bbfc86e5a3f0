/**
 * Demo data, through the management API like any administrator would create it: an identity `demo`, one
 * service per posture check type with its own policy (built from this machine's real OS, MAC and a running
 * binary, so most pass), an MFA check that prompts on unlock and wake, a DOMAIN check that fails on purpose
 * off a Windows domain, and a service with no checks. Idempotent: running it again updates what exists.
 * Used by `npm run demo` and by `npm start`.
 */
import { createHmac } from 'node:crypto';
import { AdminClient } from './admin-client.js';
import { machineFacts, type MachineFacts } from './machine-facts.js';

export const DEMO_USERNAME = 'demo';
const ROLE = 'demo';

export interface DemoLogin {
  username: string;
  password: string;
}

/**
 * The demo password is derived from the admin password: stable across runs (so a signed-in app keeps
 * working), yet unknown to anyone who does not already hold the admin password.
 */
export function demoPassword(adminPassword: string): string {
  return createHmac('sha256', adminPassword).update('postern demo identity').digest('base64url').slice(0, 20);
}

interface DemoService {
  name: string;
  description: string;
  check?: Record<string, unknown>;
}

function demoServices(facts: MachineFacts, platform: NodeJS.Platform): DemoService[] {
  const domain = platform === 'win32' && process.env.USERDOMAIN ? process.env.USERDOMAIN : 'POSTERN-DEMO';
  return [
    { name: 'demo-open', description: 'no posture checks: always reachable' },
    {
      name: 'demo-os',
      description: `${facts.osType} ${facts.osRange}`,
      check: { typeId: 'OS', operatingSystems: [{ type: facts.osType, versions: [facts.osRange] }] },
    },
    {
      name: 'demo-mac',
      description: "one of this machine's network adapters",
      check: {
        typeId: 'MAC',
        macAddresses: facts.macAddresses.length ? facts.macAddresses : ['02:00:00:00:00:00'],
      },
    },
    {
      name: 'demo-domain',
      description: `Windows domain ${domain}${platform === 'win32' ? '' : ' (fails off Windows, to show a blocked service)'}`,
      check: { typeId: 'DOMAIN', domains: [domain] },
    },
    {
      name: 'demo-process',
      description: `${facts.processPath} running, with its sha256`,
      check: {
        typeId: 'PROCESS',
        process: { osType: facts.osType, path: facts.processPath, hashes: [facts.processHash] },
      },
    },
    {
      name: 'demo-process-multi',
      description: 'any one of two programs running',
      check: {
        typeId: 'PROCESS_MULTI',
        semantic: 'AnyOf',
        processes: [
          { osType: facts.osType, path: facts.processPath, hashes: [facts.processHash] },
          {
            osType: facts.osType,
            path:
              platform === 'win32'
                ? 'C:\\Program Files\\Postern Demo\\absent.exe'
                : '/opt/postern-demo/absent',
          },
        ],
      },
    },
    {
      name: 'demo-mfa',
      description: 'an authenticator code, asked again after unlock or wake',
      check: { typeId: 'MFA', timeoutSeconds: -1, promptOnUnlock: true, promptOnWake: true },
    },
  ];
}

async function ensureIdentity(admin: AdminClient, password: string): Promise<void> {
  const identityId = await admin.upsert('identities', {
    name: DEMO_USERNAME,
    type: 'User',
    isAdmin: false,
    roleAttributes: [ROLE],
  });
  const authenticators = await admin.call<{ id: string; identityId: string }[]>(
    'GET',
    '/authenticators?limit=500',
  );
  const existing = authenticators.find((a) => a.identityId === identityId);
  if (existing) await admin.call('PATCH', `/authenticators/${existing.id}`, { password });
  else
    await admin.call('POST', '/authenticators', {
      method: 'updb',
      identityId,
      username: DEMO_USERNAME,
      password,
    });
}

/** A real service for the demo to carry: where it listens, and the program its posture check requires. */
export interface DemoWebService {
  port: number;
  sensor?: { path: string; hash: string };
}

/** `demo-web`: an HTTP page behind the tunnel, intercepted as demo-web.internal:8080. */
async function ensureWebService(admin: AdminClient, web: DemoWebService, osType: string): Promise<void> {
  const intercept = await admin.upsert('configs', {
    name: 'demo-web-intercept',
    configTypeId: 'intercept.v1',
    data: { protocols: ['tcp'], addresses: ['demo-web.internal'], portRanges: [{ low: 8080, high: 8080 }] },
  });
  const host = await admin.upsert('configs', {
    name: 'demo-web-host',
    configTypeId: 'host.v1',
    data: { protocol: 'tcp', address: '127.0.0.1', port: web.port },
  });
  const serviceId = await admin.upsert('services', {
    name: 'demo-web',
    roleAttributes: [ROLE],
    configs: [intercept, host],
    tags: { description: 'a real web page behind the tunnel; needs the demo sensor running' },
  });
  const checkId = web.sensor
    ? await admin.upsert('posture-checks', {
        name: 'demo-web-sensor',
        typeId: 'PROCESS',
        process: { osType, path: web.sensor.path, hashes: [web.sensor.hash] },
      })
    : undefined;
  await admin.upsert('service-policies', {
    name: 'demo-web-policy',
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: [`#${ROLE}`],
    serviceRoles: [`@${serviceId}`],
    postureCheckRoles: checkId ? [`@${checkId}`] : [],
  });
}

/** Seeds (or refreshes) the demo data on the controller at `baseUrl`; resolves with the demo login. */
export async function seedDemo(
  baseUrl: string,
  adminPassword: string,
  platform: NodeJS.Platform = process.platform,
  web?: DemoWebService,
): Promise<DemoLogin> {
  const admin = new AdminClient(baseUrl.replace(/\/+$/, ''));
  await admin.login(adminPassword);
  const password = demoPassword(adminPassword);
  await ensureIdentity(admin, password);
  const facts = await machineFacts(platform);
  for (const service of demoServices(facts, platform)) {
    const serviceId = await admin.upsert('services', {
      name: service.name,
      roleAttributes: [ROLE],
      tags: { description: service.description },
    });
    const checkId = service.check
      ? await admin.upsert('posture-checks', { name: `${service.name}-check`, ...service.check })
      : undefined;
    await admin.upsert('service-policies', {
      name: `${service.name}-policy`,
      type: 'Dial',
      semantic: 'AllOf',
      identityRoles: [`#${ROLE}`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: checkId ? [`@${checkId}`] : [],
    });
  }
  if (web) await ensureWebService(admin, web, facts.osType);
  return { username: DEMO_USERNAME, password };
}
