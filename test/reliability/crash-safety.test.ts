/**
 * Crash safety: the controller (the real CLI, a child process) is SIGKILLed in the middle of a burst of
 * concurrent writes, three times over the same data dir. After each kill the SQLite file must pass
 * `PRAGMA integrity_check`, and after the restart every write that was answered 2xx must be there:
 * - creates (services, identities, posture checks): each acknowledged id can be read back;
 * - posture reports, one sequential writer per identity: the stored OS version is the last acknowledged
 *   one, or the one after it (sent, committed, and killed before the answer left).
 */
import { testBackend } from '../helpers/test-database.js';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, spawnController, tempDir, type ControllerProcess } from '../helpers/controller.js';

const dataDir = tempDir('postern-crash-');
const env = { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD };
const ROUNDS = 3;
const WRITERS = 12;
const AGENTS = 4;
let controller: ControllerProcess | undefined;

afterAll(async () => {
  await controller?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const start = () => spawnController(['--data-dir', dataDir, '--port', '0', '--log-level', 'warn'], env);

interface Acked {
  collection: string;
  id: string;
}

/** Acknowledged writes so far in this round, so the kill can wait for the burst to be under way. */
let ackedThisRound = 0;

/** Writes until the controller stops answering; returns what was acknowledged. */
async function createUntilDown(api: Api, worker: number, round: number): Promise<Acked[]> {
  const acked: Acked[] = [];
  const kinds = [
    (n: string) => ['services', { name: n, roleAttributes: ['crash'] }] as const,
    (n: string) =>
      ['identities', { name: n, type: 'User', isAdmin: false, roleAttributes: ['crash'] }] as const,
    (n: string) =>
      ['posture-checks', { name: n, typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] }] as const,
  ];
  for (let i = 0; ; i++) {
    const [collection, body] = kinds[i % kinds.length]!(`crash-${round}-${worker}-${i}`);
    try {
      const res = await api.post(`${MGMT}/${collection}`, body);
      if (res.status === 201) {
        acked.push({ collection, id: res.body.data.id });
        ackedThisRound++;
      } else throw new Error(`unexpected ${res.status}: ${JSON.stringify(res.body)}`);
    } catch (error) {
      if (error instanceof TypeError) return acked; // fetch failed: the controller is gone
      throw error;
    }
  }
}

/** One agent reporting OS versions 1.<round>.<seq> in order; returns the last acknowledged seq (-1: none). */
async function reportUntilDown(api: Api, checkId: string, round: number): Promise<number> {
  let last = -1;
  for (let seq = 0; ; seq++) {
    try {
      const res = await api.post(`${CLIENT}/posture-response-bulk`, [
        { id: checkId, typeId: 'OS', type: 'Linux', version: `1.${round}.${seq}` },
      ]);
      if (res.status !== 201) throw new Error(`unexpected ${res.status}: ${JSON.stringify(res.body)}`);
      last = seq;
    } catch (error) {
      if (error instanceof TypeError) return last;
      throw error;
    }
  }
}

function integrity(): string {
  const db = new Database(join(dataDir, 'postern.db'));
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[])
      .map((r) => r.integrity_check)
      .join('; ');
  } finally {
    db.close();
  }
}

describe('SIGKILL during a burst of writes', () => {
  // SQLite's fsync and integrity_check under SIGKILL; PostgreSQL's durability is the server's own.
  it.skipIf(testBackend() === 'postgres')(
    'keeps every acknowledged write and an intact database',
    async () => {
      controller = await start();
      let admin = new Api(controller.url);
      expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
      const checkId = (
        await admin.post(`${MGMT}/posture-checks`, {
          name: 'crash-os',
          typeId: 'OS',
          operatingSystems: [{ type: 'Linux', versions: [] }],
        })
      ).body.data.id as string;
      const agents: { id: string; token: string }[] = [];
      for (let a = 0; a < AGENTS; a++) {
        const id = await createUser(admin, `crash-agent-${a}`, 'crash-password');
        const api = new Api(controller.url);
        expect((await api.login(`crash-agent-${a}`, 'crash-password', CLIENT)).status).toBe(200);
        agents.push({ id, token: api.token! });
      }

      const allAcked: Acked[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const url = controller.url;
        ackedThisRound = 0;
        const creates = Array.from({ length: WRITERS }, (_, w) =>
          createUntilDown(new Api(url, admin.token), w, round),
        );
        const reports = agents.map((a) => reportUntilDown(new Api(url, a.token), checkId, round));
        // Kill once the burst is well under way (a different amount each round), with writes in flight. A writer
        // that stopped early (an unexpected answer) ends the wait; awaiting it below reports why.
        let writerStopped = false;
        for (const c of creates) void c.catch(() => undefined).finally(() => (writerStopped = true));
        while (!writerStopped && ackedThisRound < 50 * (round + 1))
          await new Promise((resolve) => setTimeout(resolve, 10));
        expect(await controller.stop('SIGKILL')).toBeNull();
        controller = undefined;
        const acked = (await Promise.all(creates)).flat();
        const lastReports = await Promise.all(reports);
        allAcked.push(...acked);

        expect(integrity()).toBe('ok');

        controller = await start();
        admin = new Api(controller.url);
        expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
        // API sessions are stored too: the agents' tokens still work after the restart.
        const missing: Acked[] = [];
        for (const write of allAcked) {
          const res = await admin.get(`${MGMT}/${write.collection}/${write.id}`);
          if (res.status !== 200) missing.push(write);
        }
        expect(missing, `round ${round}: acknowledged writes lost`).toEqual([]);
        for (const [a, agent] of agents.entries()) {
          const data = await admin.get(`${MGMT}/identities/${agent.id}/posture-data`);
          const last = lastReports[a]!;
          if (last < 0) continue;
          const stored = data.body.data.os?.version as string | undefined;
          expect([`1.${round}.${last}`, `1.${round}.${last + 1}`], `agent ${a} round ${round}`).toContain(
            stored,
          );
        }
      }
    },
    120_000,
  );
});
