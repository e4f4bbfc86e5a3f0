/**
 * The kernel redirect's own cost, without the tunnel: a relay as intercept mode's front door is (one
 * listener on 127.0.0.1 that nftables `redirect` sends connections to, the original destination read from
 * the kernel with SO_ORIGINAL_DST for each), piping every connection to a TCP echo on `127.0.0.1:<port>`.
 * Reached directly or through the redirect, it does the same work, so the two compare the paths alone.
 * Prints `listening on http://127.0.0.1:PORT` for the bench's child launcher.
 *
 * `node --import tsx redirect-relay.ts <echo port>`
 */
import { connect, createServer } from 'node:net';
import { nativeNet, originalDestination } from '../../src/common/native-net.js';

const echoPort = Number(process.argv[2]);
if (!Number.isInteger(echoPort) || echoPort <= 0) throw new Error('usage: redirect-relay.ts <echo port>');
const native = nativeNet();
if ('unavailable' in native) throw new Error(`SO_ORIGINAL_DST cannot be read: ${native.unavailable}`);

const server = createServer((client) => {
  client.setNoDelay(true);
  // null when reached directly; read either way, as the agent's front door reads every connection
  originalDestination(client);
  const upstream = connect({ host: '127.0.0.1', port: echoPort, noDelay: true });
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream).pipe(client);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
