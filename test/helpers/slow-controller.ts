/**
 * A controller that is slow to answer, for the CLIs' "still waiting for the controller" line: a real HTTP
 * server on loopback that holds every request for `answerAfterMs`, then answers 503 in OpenZiti's error
 * envelope (a transient failure, so the client tries again and meets the same slowness each time).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SlowController {
  url: string;
  /** requests received so far */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startSlowController(answerAfterMs: number): Promise<SlowController> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests++;
    request.resume();
    const timer = setTimeout(() => {
      timers.delete(timer);
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'SERVER_BUSY', message: 'slow on purpose' }, meta: {} }));
    }, answerAfterMs);
    timers.add(timer);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
