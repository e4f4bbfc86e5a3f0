/**
 * A UDP socket and a TCP server on one address and port, as DNS is served. With port 0 the TCP server takes
 * the port the UDP socket found; that TCP port may already be held (an outgoing connection's local port comes
 * from the same range), so both then try again elsewhere, up to five times. Errors after binding (a reply to
 * a client that has gone) are the socket's own business and are ignored, never thrown.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { Server } from 'node:net';

const ATTEMPTS = 5;

export async function bindUdpAndTcp(
  host: string,
  port: number,
  newServer: () => Server,
): Promise<{ udp: UdpSocket; tcp: Server }> {
  for (let attempt = 1; ; attempt++) {
    const udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const tcp = newServer();
    try {
      await new Promise<void>((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(port, host, () => resolve());
      });
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(udp.address().port, host, () => resolve());
      });
    } catch (error) {
      udp.close();
      tcp.close();
      if (port === 0 && (error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < ATTEMPTS)
        continue;
      throw error;
    }
    for (const emitter of [udp, tcp]) {
      emitter.removeAllListeners('error');
      emitter.on('error', () => undefined);
    }
    return { udp, tcp };
  }
}
