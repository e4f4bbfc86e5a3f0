/**
 * The intercept DNS bench's upstream server in its own process: the tests' small dns-packet server, answering
 * `other.test` (A 192.0.2.10), on UDP and TCP. Prints `listening on http://127.0.0.1:PORT` (the format the
 * bench's child launcher waits for; the server speaks DNS).
 */
import { startFakeUpstream } from '../../test/helpers/dns-wire.js';

const upstream = await startFakeUpstream({ 'other.test': '192.0.2.10' });
console.log(`listening on http://${upstream.address}`);
process.on('SIGTERM', () => process.exit(0));
