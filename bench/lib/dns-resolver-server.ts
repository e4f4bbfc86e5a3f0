/**
 * The agent's intercept resolver in its own process for the bench, on a free loopback port, intercepting
 * `wiki.corp` and forwarding everything else to the upstream given as the first argument (`ip:port`).
 */
import { InterceptResolver } from '../../src/agent/intercept/dns/intercept-resolver.js';

const resolver = new InterceptResolver({ host: '127.0.0.1', port: 0, upstreams: [process.argv[2]!] });
resolver.setNames([{ pattern: 'wiki.corp', service: 'wiki' }]);
const { udp } = await resolver.start();
console.log(`listening on http://127.0.0.1:${udp.port}`);
process.on('SIGTERM', () => process.exit(0));
