/**
 * The two candidate transports' servers for bench/transport-choice.ts, in their own process: an HTTP/2
 * server answering CONNECT streams and a WebSocket server over TLS, both echoing. Tells the parent its ports.
 */
import { createServer as createHttps } from 'node:https';
import { createSecureServer } from 'node:http2';
import { WebSocketServer, createWebSocketStream } from 'ws';

const key = process.env.KEY!;
const cert = process.env.CERT!;

const h2 = createSecureServer({ key, cert, settings: { initialWindowSize: 1 << 22 }, maxSessionMemory: 64 });
h2.on('session', (s) => s.setLocalWindowSize(1 << 24));
h2.on('stream', (stream) => {
  stream.on('error', () => undefined);
  stream.respond({ ':status': 200 });
  stream.pipe(stream);
});

const https = createHttps({ key, cert });
const wss = new WebSocketServer({ server: https, perMessageDeflate: false });
wss.on('connection', (ws) => {
  const duplex = createWebSocketStream(ws);
  duplex.on('error', () => undefined);
  duplex.pipe(duplex);
});

let listening = 0;
const ready = () => {
  if (++listening < 2) return;
  process.send!({
    h2: (h2.address() as { port: number }).port,
    ws: (https.address() as { port: number }).port,
  });
};
h2.listen(0, '127.0.0.1', ready);
https.listen(0, '127.0.0.1', ready);
