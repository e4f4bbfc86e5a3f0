/**
 * Agent event streams cannot take the controller's file descriptors (issue 22: 992 streams of one API
 * session exhausted a 1,024 limit, and `/version` and the administrator's sign-in failed for everyone).
 * Against the real controller process (`server/cli.ts`), on both stores:
 * - one API session holds at most 4 streams and one identity 16; the next is a 429 in the OpenZiti
 *   envelope, and a closed stream frees its place;
 * - started with a low descriptor limit (`prlimit --nofile=256`), a client opening streams across many
 *   identities is refused with a 503 well before the limit, and `/version`, an administrator's sign-in and
 *   the management API still answer; the controller logs the refusal once, not once per request.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_EVENTS_PATH } from '../../src/api/data-plane.js';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { spawnController, tempDir, type ControllerProcess } from '../helpers/controller.js';

const ADMIN_PASSWORD = 'event-stream-admin-password';
const PER_SESSION = 4;
const PER_IDENTITY = 16;

let controller: ControllerProcess | undefined;
const open: ClientRequest[] = [];

afterEach(async () => {
  for (const stream of open.splice(0)) stream.destroy();
  await controller?.stop();
  controller = undefined;
});

interface StreamAnswer {
  status: number;
  body?: { error: { code: string; message: string; cause?: { field?: string } } };
  stream: ClientRequest;
}

/** Opens one event stream on its own connection; resolves at its first bytes, or with the refusal. */
function openStream(baseUrl: string, token: string): Promise<StreamAnswer> {
  return new Promise((resolve, reject) => {
    const stream = httpRequest(
      `${baseUrl}${CLIENT}${AGENT_EVENTS_PATH}`,
      { headers: { 'zt-session': token }, agent: false },
      (res) => {
        if (res.statusCode === 200) {
          open.push(stream);
          res.once('data', () => resolve({ status: 200, stream }));
          return;
        }
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), stream }));
      },
    );
    stream.on('error', reject);
    stream.end();
  });
}

async function start(wrapper: string[] = []): Promise<{ url: string; admin: Api }> {
  const dataDir = tempDir();
  controller = await spawnController(
    ['--data-dir', dataDir, '--port', '0', '--no-router'],
    { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD },
    wrapper,
  );
  const admin = new Api(controller.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  return { url: controller.url, admin };
}

async function signIn(url: string, name: string): Promise<string> {
  const api = new Api(url);
  const res = await api.login(name, `${name}-password`, CLIENT);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return api.token!;
}

const refusalLines = (kind: string) =>
  controller!
    .output()
    .split('\n')
    .filter((line) => line.includes(`"refusal":"${kind}"`));

describe('agent event streams', () => {
  it(
    `at most ${PER_SESSION} per API session and ${PER_IDENTITY} per identity; then 429`,
    { timeout: 120_000 },
    async () => {
      const { url, admin } = await start();
      await createUser(admin, 'streamer', 'streamer-password');
      const sessions = await Promise.all(
        Array.from({ length: PER_IDENTITY / PER_SESSION + 1 }, () => signIn(url, 'streamer')),
      );
      const first = sessions[0]!;
      for (let i = 0; i < PER_SESSION; i++) expect((await openStream(url, first)).status).toBe(200);
      const overSession = await openStream(url, first);
      expect(overSession.status).toBe(429);
      expect(overSession.body!.error.code).toBe('TOO_MANY_EVENT_STREAMS');
      expect(overSession.body!.error.message).toContain(`already has ${PER_SESSION} event streams open`);

      // A closed stream frees its place (once the controller has seen the socket close).
      open.shift()!.destroy();
      await expect
        .poll(async () => (await openStream(url, first)).status, { timeout: 10_000, interval: 200 })
        .toBe(200);

      for (const token of sessions.slice(1, PER_IDENTITY / PER_SESSION))
        for (let i = 0; i < PER_SESSION; i++) expect((await openStream(url, token)).status).toBe(200);
      const overIdentity = await openStream(url, sessions.at(-1)!);
      expect(overIdentity.status).toBe(429);
      expect(overIdentity.body!.error.message).toBe(
        `This identity already has ${PER_IDENTITY} event streams open, the most it may; close one first`,
      );
      // Refusals are logged once per kind per minute, however many there are.
      for (let i = 0; i < 5; i++) expect((await openStream(url, first)).status).toBe(429);
      await expect.poll(() => refusalLines('event-streams-per-api-session').length).toBe(1);
      expect(refusalLines('event-streams-per-identity')).toHaveLength(1);
    },
  );

  it(
    'near the descriptor limit new streams are refused, and /version, sign-in and the management API answer',
    { timeout: 240_000 },
    async () => {
      const { url, admin } = await start(['prlimit', '--nofile=256:256', '--']);
      expect(readFileSync(`/proc/${controller!.child.pid}/limits`, 'utf8')).toMatch(
        /Max open files\s+256\s+256/,
      );
      let streams = 0;
      let refusal: StreamAnswer | undefined;
      for (let n = 0; n < 40 && !refusal; n++) {
        const name = `flooder-${n}`;
        await createUser(admin, name, `${name}-password`);
        for (let s = 0; s < PER_IDENTITY / PER_SESSION && !refusal; s++) {
          const token = await signIn(url, name);
          for (let i = 0; i < PER_SESSION && !refusal; i++) {
            const answer = await openStream(url, token);
            if (answer.status === 200) streams++;
            else refusal = answer;
          }
        }
      }
      expect(refusal?.status).toBe(503);
      expect(refusal!.body!.error.code).toBe('SERVER_BUSY');
      expect(streams).toBeGreaterThan(50);

      const version = await fetch(`${url}/version`);
      expect(version.status).toBe(200);
      const again = new Api(url);
      expect((await again.login('admin', ADMIN_PASSWORD)).status).toBe(200);
      expect((await again.get(`${MGMT}/identities?limit=1`)).status).toBe(200);

      // Whoever asks next (an identity under its caps) is refused too, and logged no more.
      await createUser(again, 'late-streamer', 'late-streamer-password');
      const late = await signIn(url, 'late-streamer');
      for (let i = 0; i < 5; i++) expect((await openStream(url, late)).status).toBe(503);
      await expect.poll(() => refusalLines('event-streams-descriptors').length).toBe(1);
    },
  );
});
