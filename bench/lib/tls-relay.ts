/**
 * The ceiling for tunnel throughput: a bare TLS relay made with Node's own `tls` module, in its own process
 * as the router is. It accepts TLS on loopback and pipes each connection, as it is, to plain TCP on
 * `127.0.0.1:<port>` (the same echo service the tunnel reaches): no HTTP/2, no authentication, no stream
 * protocol. The same kind of certificate as a router's (ECDSA P-256, self-signed) and Node's default TLS
 * settings on both ends, as the router and agent use. Prints `listening on https://127.0.0.1:PORT` for the
 * bench's child launcher. `node --import tsx bench/lib/tls-relay.ts <target port>`.
 */
import { connect as tcpConnect } from 'node:net';
import { createServer } from 'node:tls';
import { createSelfSignedCertificate } from '../../src/common/self-signed-certificate.js';

const targetPort = Number(process.argv[2]);
if (!Number.isInteger(targetPort) || targetPort <= 0) throw new Error('usage: tls-relay.ts <target port>');

const { certPem, keyPem } = await createSelfSignedCertificate('postern-bench-relay', []);
const server = createServer({ key: keyPem, cert: certPem }, (client) => {
  client.setNoDelay(true);
  const upstream = tcpConnect({ host: '127.0.0.1', port: targetPort, noDelay: true });
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream).pipe(client);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`listening on https://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
