/**
 * The agent's half of the bare TLS relay path, in the bench process where the agent's tunnel runs: a plain
 * TCP listener on loopback whose every connection is carried over its own TLS connection to the relay.
 * It mirrors the agent's local listener, so the relay path has the tunnel's hops (client → local listener
 * → TLS → relay process → echo) minus HTTP/2, sessions and the router's checks.
 */
import { createServer, type Server } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface Forwarder {
  port: number;
  close(): Promise<void>;
}

export async function startTlsForwarder(relayPort: number): Promise<Forwarder> {
  const server: Server = createServer((local) => {
    local.setNoDelay(true);
    // The relay's certificate is made fresh each run; what is measured is the encryption, not the trust.
    const tls = tlsConnect({ host: '127.0.0.1', port: relayPort, rejectUnauthorized: false });
    tls.setNoDelay(true);
    local.on('error', () => tls.destroy());
    tls.on('error', () => local.destroy());
    local.pipe(tls).pipe(local);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
