/**
 * A TCP echo server in its own process, so the service behind a tunnel never shares an event loop with the
 * bench that drives it or the router under test. Prints `listening on http://127.0.0.1:PORT` (the address
 * format the bench's child launcher waits for; the server speaks raw TCP).
 */
import { createServer } from 'node:net';

const server = createServer((socket) => {
  socket.setNoDelay(true);
  socket.on('error', () => undefined);
  socket.pipe(socket);
});
server.maxConnections = 50_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
