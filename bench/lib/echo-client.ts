/**
 * The client side of a throughput bench, as a program of its own so it can run where the bench process
 * cannot (inside a network namespace, through `ip netns exec`): echo throughput to each target in turn,
 * rounds interleaved so a noisy neighbour hurts every path alike, after one unmeasured warm-up round.
 * Host names are resolved the ordinary way (getaddrinfo, the namespace's resolv.conf), as any program does.
 * Prints one JSON line: `{"<label>": [MiB/s per round], …}`.
 *
 * `node --import tsx echo-client.ts <MiB per round> <rounds> <label>=<host>:<port>...`
 */
import { connect, type Socket } from 'node:net';
import { echoMiBps } from './echo-throughput.js';

const [mibArg, roundsArg, ...targetArgs] = process.argv.slice(2);
const mib = Number(mibArg);
const rounds = Number(roundsArg);
const targets = targetArgs.map((arg) => {
  const m = /^([^=]+)=(.+):(\d+)$/.exec(arg);
  if (!m) throw new Error(`target ${arg}: expected <label>=<host>:<port>`);
  return { label: m[1]!, host: m[2]!, port: Number(m[3]) };
});
if (!(mib > 0) || !(rounds > 0) || targets.length === 0)
  throw new Error('usage: echo-client.ts <MiB per round> <rounds> <label>=<host>:<port>...');

const open = (host: string, port: number) => () =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });

const results: Record<string, number[]> = Object.fromEntries(targets.map((t) => [t.label, []]));
for (const t of targets) await echoMiBps(open(t.host, t.port), 16 * 1024 * 1024);
for (let i = 0; i < rounds; i++)
  for (const t of targets) results[t.label]!.push(await echoMiBps(open(t.host, t.port), mib * 1024 * 1024));
console.log(JSON.stringify(results));
