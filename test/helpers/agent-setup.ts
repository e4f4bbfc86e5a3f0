/**
 * Shared set-up for the agent's integration tests: facts about this machine (found independently of the
 * agent's collectors, so the tests do not grade the collectors with their own answers), admin helpers that
 * build services, checks and policies, a prompt port that answers from a script, and TOTP codes.
 */
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import { generate } from 'otplib';
import type { AgentNotice, PromptPort, TotpPrompt } from '../../src/agent/prompts/prompt-port.js';
import type { ControllerContext } from '../../controller/platform/context.js';
import { Api, MGMT } from './api.js';
import { ADMIN_PASSWORD } from './controller.js';

export interface MachineFacts {
  /** `>=MAJOR.MINOR.0` of the running kernel */
  osRange: string;
  mac: string;
  /** the binary this test process runs from, with its sha256 */
  processPath: string;
  processHash: string;
}

export function machineFacts(): MachineFacts {
  const [major, minor] = os.release().split('.');
  const mac = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.mac !== '00:00:00:00:00:00')?.mac;
  if (!mac) throw new Error('this machine has no non-loopback network interface with a MAC address');
  const processPath = realpathSync(process.execPath);
  const processHash = createHash('sha256').update(readFileSync(processPath)).digest('hex');
  return { osRange: `>=${major}.${minor}.0`, mac, processPath, processHash };
}

export async function adminApi(baseUrl: string): Promise<Api> {
  const admin = new Api(baseUrl);
  const res = await admin.login('admin', ADMIN_PASSWORD);
  if (res.status !== 200) throw new Error(`admin login failed: ${JSON.stringify(res.body)}`);
  return admin;
}

async function created(admin: Api, path: string, body: unknown): Promise<string> {
  const res = await admin.post(`${MGMT}${path}`, body);
  if (res.status !== 201) throw new Error(`POST ${path} failed (${res.status}): ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** A service reachable by identities with `#role`, guarded by the given check (or none). */
export async function guardedService(
  admin: Api,
  name: string,
  role: string,
  check?: Record<string, unknown>,
): Promise<{ serviceId: string; checkId?: string }> {
  const serviceId = await created(admin, '/services', { name });
  const checkId = check
    ? await created(admin, '/posture-checks', { name: `${name}-check`, ...check })
    : undefined;
  await created(admin, '/service-policies', {
    name: `${name}-policy`,
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: [`#${role}`],
    serviceRoles: [`@${serviceId}`],
    postureCheckRoles: checkId ? [`@${checkId}`] : [],
  });
  return { serviceId, checkId };
}

/** Answers prompts with whatever `answer` returns, recording prompts and notices. */
export class ScriptedPromptPort implements PromptPort {
  readonly prompts: TotpPrompt[] = [];
  readonly notices: AgentNotice[] = [];

  constructor(public answer: (prompt: TotpPrompt) => string | null | Promise<string | null> = () => null) {}

  async promptTotp(prompt: TotpPrompt): Promise<string | null> {
    this.prompts.push(prompt);
    return this.answer(prompt);
  }

  notify(notice: AgentNotice): void {
    this.notices.push(notice);
  }
}

/** The TOTP code an authenticator app would show at `at` (epoch ms). */
export function totpAt(secret: string, at: number): Promise<string> {
  return generate({ secret, epoch: Math.floor(at / 1000) });
}

/** Moves the in-process controller's clock forward (grace periods, timeouts) without waiting. */
export function shiftControllerClock(ctx: ControllerContext, ms: number): () => number {
  const base = ctx.clock;
  const offset = ms + ((base as { offset?: number }).offset ?? 0);
  ctx.clock = Object.assign({ now: () => new Date(Date.now() + offset) }, { offset });
  return () => Date.now() + offset;
}
