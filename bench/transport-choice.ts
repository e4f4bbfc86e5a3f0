/**
 * Why the agent-to-router transport is HTTP/2 CONNECT and not one WebSocket per connection: both measured
 * here on loopback, with the same TLS certificate and the same echo behind. Figures: new-connection setup
 * p50/p99 (HTTP/2: a stream on a warm TLS connection; WebSocket: a TLS handshake and an upgrade per
 * connection, which is what one socket per user connection means), echo throughput of one connection, and
 * server memory per idle connection at N connections (the server runs in a child process so only its
 * memory is counted). `npx tsx bench/transport-choice.ts [N]`.
 */
import { fork } from 'node:child_process';
import { connect as h2connect } from 'node:http2';
import { fileURLToPath } from 'node:url';
import WebSocket, { createWebSocketStream } from 'ws';
import { createSelfSignedCertificate } from '../src/common/self-signed-certificate.js';
import { percentile } from './lib/figure.js';
import { rssMiB, sleep } from './lib/proc-stats.js';

const IDLE = Number(process.argv[2] ?? 5000);
type Duplexish = NodeJS.ReadWriteStream & { destroy(): void };

async function serverChild(): Promise<{ pid: number; h2: number; ws: number; stop(): void }> {
  const { certPem, keyPem } = await createSelfSignedCertificate('postern-router', []);
  const child = fork(fileURLToPath(new URL('./lib/transport-servers.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, CERT: certPem, KEY: keyPem },
  });
  const ports = await new Promise<{ h2: number; ws: number }>((resolve) =>
    child.once('message', resolve as never),
  );
  return { pid: child.pid!, ...ports, stop: () => child.kill() };
}

async function main(): Promise<void> {
  const server = await serverChild();
  const h2 = h2connect(`https://127.0.0.1:${server.h2}`, {
    rejectUnauthorized: false,
    settings: { initialWindowSize: 1 << 22 },
    maxSessionMemory: 64,
  });
  await new Promise((resolve) => h2.once('connect', resolve));
  h2.setLocalWindowSize(1 << 24);
  const openH2 = (): Promise<Duplexish> =>
    new Promise((resolve) => {
      const s = h2.request({ ':method': 'CONNECT', ':authority': 'x:1' });
      s.once('response', () => resolve(s as unknown as Duplexish));
    });
  const openWs = (): Promise<Duplexish> =>
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`wss://127.0.0.1:${server.ws}/`, {
        rejectUnauthorized: false,
        perMessageDeflate: false,
      });
      ws.once('open', () => resolve(createWebSocketStream(ws) as unknown as Duplexish));
      ws.once('error', reject);
    });

  const rows: string[] = [];
  for (const [name, open] of [
    ['http2 CONNECT', openH2],
    ['websocket/TLS', openWs],
  ] as const) {
    const setup: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      const s = await open();
      await new Promise<void>((resolve) => {
        s.once('data', () => resolve());
        s.write('x');
      });
      setup.push(performance.now() - t);
      s.destroy();
    }
    console.error(`${name}: setup done`);
    const s = await open();
    const bytes = 128 * 1024 * 1024;
    const chunk = Buffer.alloc(256 * 1024, 1);
    const t = performance.now();
    await new Promise<void>((resolve) => {
      let got = 0;
      s.on('data', (c: Buffer) => {
        got += c.length;
        if (got >= bytes) resolve();
      });
      void (async () => {
        for (let sent = 0; sent < bytes; sent += chunk.length)
          if (!s.write(chunk)) await new Promise((r) => s.once('drain', r));
      })();
    });
    const mibps = bytes / 1048576 / ((performance.now() - t) / 1000);
    s.destroy();
    console.error(`${name}: throughput done`);
    await sleep(1000);
    const before = rssMiB(server.pid);
    const idle: Duplexish[] = [];
    for (let i = 0; i < IDLE; i += 250) idle.push(...(await Promise.all(Array.from({ length: 250 }, open))));
    await sleep(2000);
    const perKiB = ((rssMiB(server.pid) - before) * 1024) / IDLE;
    for (const c of idle) c.destroy();
    await sleep(1000);
    rows.push(
      `${name.padEnd(14)} setup p50 ${percentile(setup, 50).toFixed(2)} ms, p99 ${percentile(setup, 99).toFixed(2)} ms; ` +
        `echo ${mibps.toFixed(0)} MiB/s; server memory ${perKiB.toFixed(1)} KiB per idle connection at ${IDLE}`,
    );
  }
  h2.close();
  server.stop();
  console.log(rows.join('\n'));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
