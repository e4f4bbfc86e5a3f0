/**
 * Keeps the last file descriptors for what must always answer: when the process nears its limit (FdBudget),
 * a request that is not `/version`, a sign-in or the management API is answered 503 with `Connection: close`,
 * which frees its socket at once, so whoever holds the other connections cannot lock out the administrator.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorEnvelope } from './envelope.js';
import type { FdBudget } from './fd-budget.js';
import type { RefusalLog } from './refusal-log.js';

const ESSENTIAL = [
  /^\/version(?:\?|$)/,
  /^\/edge\/(?:client|management)\/v1\/version(?:\?|$)/,
  /^\/edge\/(?:client|management)\/v1\/authenticate(?:\/|\?|$)/,
  /^\/edge\/management\/v1(?:\/|\?|$)/,
];

const isEssential = (request: FastifyRequest) => ESSENTIAL.some((p) => p.test(request.url));

export function installDescriptorReserve(app: FastifyInstance, budget: FdBudget, refusals: RefusalLog): void {
  app.server.on('connection', () => budget.noteAccepted());
  app.addHook('onRequest', (request, reply, done) => {
    if (isEssential(request) || budget.allows('request')) return done();
    refusals.refused('requests-descriptors', 'request refused: file descriptors near the limit', {
      open: budget.open(),
      limit: budget.limit,
    });
    void reply
      .status(503)
      .header('connection', 'close')
      .header('retry-after', '30')
      .send(
        errorEnvelope({
          code: 'SERVER_BUSY',
          message:
            'The controller is keeping its remaining connections for sign-in and administration; try again later',
          cause: { field: 'request', reason: 'file descriptors near the limit' },
          requestId: request.id,
        }),
      );
  });
}
