/**
 * The throughput baseline: a bare fastify route that does no work and answers with a precomputed JSON body
 * of the same size as the controller's answer. Run as its own process (see children.ts):
 * `node --import tsx bench/lib/baseline-server.ts <bytes> [status]`.
 *
 * Fastify still parses the request's JSON body, as it does for the controller: the baseline removes the
 * controller's work (auth, validation, SQLite, evaluation), not the framework's.
 */
import Fastify from 'fastify';

const bytes = Number(process.argv[2] ?? 100);
const status = Number(process.argv[3] ?? 200);

/** `{"data":{"pad":"xxx"},"meta":{}}` padded to exactly `size` bytes (or the smallest such document). */
function paddedJson(size: number): string {
  const empty = JSON.stringify({ data: { pad: '' }, meta: {} });
  return JSON.stringify({ data: { pad: 'x'.repeat(Math.max(0, size - empty.length)) }, meta: {} });
}

const body = paddedJson(bytes);
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
app.post('/*', async (_request, reply) =>
  reply.status(status).type('application/json; charset=utf-8').send(body),
);
app.get('/*', async (_request, reply) =>
  reply.status(status).type('application/json; charset=utf-8').send(body),
);

const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`baseline listening on ${address}`);
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
