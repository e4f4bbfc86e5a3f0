/**
 * Intercept mode's system layer as a separate process, for the namespace tests: they run it with
 * `ip netns exec <ns> node --import tsx …` so every change it makes lands inside the test's namespace.
 *   apply <stateDir> <listenPort> <plan input JSON> [--hold]   prints {"applied": …}; --hold then waits to be killed
 *   restore <stateDir>                                         prints {"restored": …}
 *   probe <listenPort> <host:port>…                            listens on 127.0.0.1 and ::1, connects to each
 *                                                              target, prints {"probe": {target: "accepted" | error code}}
 *   resolver <address>                                         binds <address>:53 on UDP and TCP and reaches
 *                                                              both itself, prints {"resolver": {udp, tcp}}
 */
import { createSocket } from 'node:dgram';
import { type Server, createConnection, createServer } from 'node:net';
import { buildSystemPlan, type PlanInput } from '../../src/agent/intercept/system/intercept-plan.js';
import { applyInterceptSystem, restoreSystem } from '../../src/agent/intercept/system/linux-system.js';

function listen(port: number, host: string, accepted: Set<string>): Promise<Server> {
  const server = createServer((socket) => {
    socket.once('data', (data) => accepted.add(data.toString()));
    socket.on('error', () => {});
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** Connects and sends the target's own text, so the listener can tell which connection reached it. */
function connect(target: string, accepted: Set<string>): Promise<string> {
  const at = target.lastIndexOf(':');
  const host = target.slice(0, at).replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = createConnection({ host, port: Number(target.slice(at + 1)) });
    socket.setTimeout(10_000, () => socket.destroy(new Error('ETIMEDOUT')));
    socket.once('connect', () => {
      socket.write(target);
      const started = Date.now();
      const wait = setInterval(() => {
        if (accepted.has(target) || Date.now() - started > 10_000) {
          clearInterval(wait);
          socket.destroy();
          resolve(accepted.has(target) ? 'accepted' : 'connected elsewhere');
        }
      }, 20);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'apply') {
    const [stateDir, port, input, hold] = args;
    const plan = buildSystemPlan(JSON.parse(input!) as PlanInput);
    const applied = await applyInterceptSystem(plan, { stateDir: stateDir!, listenPort: Number(port) });
    console.log(JSON.stringify({ applied }));
    if (hold === '--hold') setInterval(() => {}, 60_000);
  } else if (command === 'restore') {
    console.log(JSON.stringify({ restored: await restoreSystem(args[0]!) }));
  } else if (command === 'probe') {
    const [port, ...targets] = args;
    const accepted = new Set<string>();
    const servers = [
      await listen(Number(port), '127.0.0.1', accepted),
      await listen(Number(port), '::1', accepted),
    ];
    const probe: Record<string, string> = {};
    for (const target of targets) probe[target] = await connect(target, accepted);
    servers.forEach((s) => s.close());
    console.log(JSON.stringify({ probe }));
    process.exit(0);
  } else if (command === 'resolver') {
    const address = args[0]!;
    const udp = createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(53, address, resolve));
    const udpAnswer = new Promise<string>((resolve) => udp.once('message', (m) => resolve(m.toString())));
    createSocket('udp4').send('udp reached', 53, address);
    const tcpServer = createServer((socket) => socket.on('error', () => {}));
    await new Promise<void>((resolve) => tcpServer.listen(53, address, resolve));
    const tcp = await new Promise<string>((resolve) => {
      tcpServer.once('connection', (socket) =>
        resolve(`tcp reached ${socket.localAddress}:${socket.localPort}`),
      );
      createConnection({ host: address, port: 53 }).on('error', (error) => resolve(error.message));
    });
    console.log(JSON.stringify({ resolver: { udp: await udpAnswer, tcp } }));
    process.exit(0);
  } else {
    throw new Error(`unknown command ${String(command)}`);
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
