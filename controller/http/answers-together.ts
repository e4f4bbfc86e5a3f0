/**
 * Answers written together: a response is handed to the socket at the end of the event loop's current turn
 * (`setImmediate`), not the moment it is ready, so the answers to all the requests one turn read go out
 * back to back. Each write to an idle peer wakes it; a peer on another core of the same machine (an agent
 * on the desktop, a load balancer's sidecar, a benchmark) is woken across cores, which under virtualisation
 * costs the writer more than handling a small request. Written together, one wakeup serves them all. The
 * delay is the rest of one turn (microseconds on a busy server, nothing on an idle one).
 */
import type { FastifyInstance } from 'fastify';

// Kept from load time: a test's fake timers replace the global, and answers must never wait on a fake clock.
const nextTurn = setImmediate;

export function answerTogether(app: FastifyInstance): void {
  app.addHook('onSend', (_request, _reply, payload, done) => {
    nextTurn(() => done(null, payload));
  });
}
