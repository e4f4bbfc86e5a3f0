/**
 * What the audit trail and one webhook subscription cost the agents' hot paths: throughput of
 * `POST /posture-response-bulk` and `POST /sessions` (the `throughput` bench's workload: 50 agents, one
 * connection each) on one controller with a subscription to every event type (`*`) POSTing to a receiver on
 * loopback, against the same controller with no subscription, rounds alternating on the same process and
 * data (the subscription created before each subject round and deleted after it), medians. The goal
 * (issue 28): within 10 %, a ratio of at least 0.9.
 *
 * The trail itself is always on (it has no switch), and a report that repeats what is stored or a session
 * records no event (docs/PERFORMANCE.md): so that events flow while the load runs, an administrator changes
 * an identity every EVENT_EVERY_MS in both rounds (recorded on the trail in both; delivered in the subject's).
 * The note says how many events the receiver got during the subject's rounds.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminOf, pinLoadGenerator, startControllerChild } from './lib/children.js';
import { MGMT } from './lib/api-setup.js';
import { figure, median, type Figure } from './lib/figure.js';
import type { LoadResult } from './lib/load.js';
import type { BenchOptions } from './lib/options.js';
import { CONNECTIONS, measure, prepareWorkload, type Target } from './throughput.js';

/** A receiver that takes every delivery (204) and counts them; it does not verify: its cost is not measured. */
async function startReceiver(): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An administrator's change this often during every round: 20 events a second on the trail. */
const EVENT_EVERY_MS = 50;

/** Changes an identity's tags every EVENT_EVERY_MS (one audit event each) until the returned stop is called. */
function changeStream(admin: Awaited<ReturnType<typeof adminOf>>, identityId: string): () => Promise<number> {
  let stopped = false;
  let n = 0;
  const running = (async () => {
    while (!stopped) {
      const res = await admin.patch(`${MGMT}/identities/${identityId}`, { tags: { bench: String(n) } });
      if (res.status !== 200) throw new Error(`the change stream failed: ${JSON.stringify(res.body)}`);
      n++;
      await new Promise((resolve) => setTimeout(resolve, EVENT_EVERY_MS));
    }
  })();
  return async () => {
    stopped = true;
    await running;
    return n;
  };
}

export async function auditDeliveryFigures(options: BenchOptions): Promise<Figure[]> {
  const pinning = pinLoadGenerator();
  process.stdout.write(`(${pinning ? pinning.describe() : 'unpinned'}) `);
  const controller = await startControllerChild();
  const receiver = await startReceiver();
  try {
    pinning?.pinServer(controller.pid);
    const work = await prepareWorkload(controller.url);
    const admin = await adminOf(controller.url);
    const subscribe = async () => {
      const res = await admin.post(`${MGMT}/webhooks`, {
        name: 'bench-siem',
        url: receiver.url,
        eventTypes: ['*'],
        secret: 'bench-webhook-secret-0123456789',
      });
      if (res.status !== 201) throw new Error(`subscribing failed: ${JSON.stringify(res.body)}`);
      return res.body.data.id as string;
    };
    const changed = await admin.post(`${MGMT}/identities`, {
      name: 'bench-changed',
      type: 'User',
      isAdmin: false,
    });
    if (changed.status !== 201)
      throw new Error(`creating the changed identity failed: ${JSON.stringify(changed.body)}`);
    const changedId = changed.body.data.id as string;
    const measureWithChanges = async (target: Target) => {
      const stop = changeStream(admin, changedId);
      try {
        return await measure([controller.url], target, work.tokens, seconds);
      } finally {
        changes += await stop();
      }
    };
    let changes = 0;
    const seconds = options.quick ? 3 : 8;
    const rounds = options.quick ? 1 : 3;
    const figures: Figure[] = [];
    for (const target of work.targets) {
      changes = 0;
      await measure([controller.url], target, work.tokens, 2);
      const without: LoadResult[] = [];
      const withHook: LoadResult[] = [];
      let events = 0;
      for (let r = 0; r < rounds; r++) {
        without.push(await measureWithChanges(target));
        const id = await subscribe();
        const before = receiver.received();
        withHook.push(await measureWithChanges(target));
        events += receiver.received() - before;
        await admin.delete(`${MGMT}/webhooks/${id}`);
      }
      const placement = pinning ? pinning.describe() : 'unpinned: load generator and server share the cores';
      figures.push(
        figure({
          name: `audit-delivery.${target.key}.throughput`,
          label: `${target.label} throughput with the audit trail and one webhook subscription`,
          value: median(withHook.map((r) => r.rps)),
          unit: 'req/s',
          baseline: median(without.map((r) => r.rps)),
          baselineLabel: 'the same controller without a webhook subscription',
          target: { ratioMin: 0.9 },
          note:
            `SQLite, one controller; a subscription to every event type (*) POSTing to a loopback receiver, ` +
            `created before and deleted after each subject round; ${CONNECTIONS} connections, ${rounds} x ` +
            `${seconds} s alternating, median; in every round an administrator's change every ` +
            `${EVENT_EVERY_MS} ms (${changes} changes over this figure's rounds), ${events} events delivered during the ` +
            `subject's rounds (a repeated report or a session records none); ${placement}`,
        }),
      );
    }
    return figures;
  } finally {
    await receiver.close();
    await controller.stop();
    pinning?.release();
  }
}
