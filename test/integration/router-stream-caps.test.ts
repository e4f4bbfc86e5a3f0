/**
 * Tunnel streams are capped (issue 22, item 7): one edge session may have MAX_STREAMS_PER_SESSION streams
 * open on a router at once and one identity MAX_STREAMS_PER_IDENTITY (all its sessions, all its devices).
 * On a real controller and router with a real service behind it: the streams up to each cap carry bytes,
 * the one past it is refused with 429 and its `postern-error` (before anything is dialed: the service sees
 * no connection for it), a closed stream gives its slot back, and the agent says what the user can do.
 */
import type { ClientHttp2Session, ClientHttp2Stream } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT } from '../helpers/api.js';
import {
  closeServer,
  create,
  dialSession,
  echoServer,
  openStream,
  publishService,
  roundTrip,
  routerSession,
  sha256,
  signedInUser,
  startWorld,
  stopWorld,
  waitFor,
  type DialSession,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { MAX_STREAMS_PER_IDENTITY, MAX_STREAMS_PER_SESSION } from '../../src/api/data-plane.js';
import { RouterConnector } from '../../src/agent/tunnel/router-connector.js';

describe('tunnel stream caps', () => {
  let world: World;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let serviceId: string;
  let staff: string;
  const connections: ClientHttp2Session[] = [];

  beforeAll(async () => {
    world = await startWorld();
    echo = await echoServer();
    const attribute = unique('caps-apps');
    staff = unique('caps-staff');
    ({ serviceId } = await publishService(world.admin, echo.port, { attribute }));
    await create(world.admin, 'service-policies', {
      name: unique('caps-dial'),
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${staff}`],
      serviceRoles: [`#${attribute}`],
    });
  });

  afterAll(async () => {
    for (const c of connections) c.destroy();
    await closeServer(echo.server, echo.sockets);
    await stopWorld(world);
  });

  const connect = async (session: DialSession) => {
    const h2 = await routerSession(session.edgeRouters[0]!.urls.tls!, session.edgeRouters[0]!.fingerprint);
    connections.push(h2);
    return h2;
  };

  /** Opens `count` streams on one connection (in batches), each proven to reach the service. */
  const openMany = async (h2: ClientHttp2Session, session: DialSession, count: number) => {
    const streams: ClientHttp2Stream[] = [];
    for (let done = 0; done < count;) {
      const batch = Math.min(100, count - done);
      const opened = await Promise.all(
        Array.from({ length: batch }, () => openStream(h2, session.token, serviceId)),
      );
      for (const o of opened) {
        expect(o.status).toBe(200);
        streams.push(o.stream);
      }
      done += batch;
    }
    // Every one of them is a live tunnel (the last of them proven end to end).
    const data = Buffer.from(unique('bytes'));
    expect(await roundTrip(streams.at(-1)!, data)).toBe(sha256(data));
    return streams;
  };

  it(`refuses the stream past ${MAX_STREAMS_PER_SESSION} on one edge session with SESSION_STREAM_LIMIT, and frees a closed one's slot`, async () => {
    const user = await signedInUser(world, [staff]);
    const session = await dialSession(user, serviceId);
    const h2 = await connect(session);
    const streams = await openMany(h2, session, MAX_STREAMS_PER_SESSION);
    const dialedBefore = echo.connections();

    const refused = await openStream(h2, session.token, serviceId);
    expect(refused.status).toBe(429);
    expect(refused.error).toBe('SESSION_STREAM_LIMIT');
    expect(echo.connections()).toBe(dialedBefore);

    // What the agent makes of it: the code, and words the user can act on.
    const connector = new RouterConnector();
    try {
      const result = await connector.dial(session.edgeRouters as never, session.token, serviceId);
      expect(result).toMatchObject({ status: 429, error: 'SESSION_STREAM_LIMIT' });
      expect('message' in result && result.message).toContain(`allows ${MAX_STREAMS_PER_SESSION}`);
    } finally {
      connector.close();
    }

    // The cap is on streams open at once: a closed one's slot is free again.
    streams.pop()!.close();
    await waitFor(
      async () => {
        const again = await openStream(h2, session.token, serviceId);
        if (again.status === 200) streams.push(again.stream);
        return again.status === 200;
      },
      10_000,
      'a slot freed by a closed stream',
    );
    for (const s of streams) s.close();
  });

  it(`refuses the stream past ${MAX_STREAMS_PER_IDENTITY} for one identity (every device) with IDENTITY_STREAM_LIMIT`, async () => {
    const user = await signedInUser(world, [staff]);
    const devices = MAX_STREAMS_PER_IDENTITY / MAX_STREAMS_PER_SESSION;
    const streams: ClientHttp2Stream[] = [];
    // The same identity signed in on several devices: one API session, edge session and connection each.
    for (let i = 0; i < devices; i++) {
      const device = i === 0 ? user.api : user.api.as(undefined);
      if (i > 0) expect((await device.login(user.name, 'user-password', CLIENT)).status).toBe(200);
      const session = await dialSession({ ...user, api: device }, serviceId);
      streams.push(...(await openMany(await connect(session), session, MAX_STREAMS_PER_SESSION)));
    }
    expect(streams).toHaveLength(MAX_STREAMS_PER_IDENTITY);
    const dialedBefore = echo.connections();

    const another = user.api.as(undefined);
    expect((await another.login(user.name, 'user-password', CLIENT)).status).toBe(200);
    const fresh = await dialSession({ ...user, api: another }, serviceId);
    const refused = await openStream(await connect(fresh), fresh.token, serviceId);
    expect(refused.status).toBe(429);
    expect(refused.error).toBe('IDENTITY_STREAM_LIMIT');
    expect(echo.connections()).toBe(dialedBefore);

    // Another identity is not affected.
    const other = await signedInUser(world, [staff]);
    const theirs = await dialSession(other, serviceId);
    const opened = await openStream(await connect(theirs), theirs.token, serviceId);
    expect(opened.status).toBe(200);
    opened.stream.close();
    for (const s of streams) s.close();
  });
});
