/**
 * `--cors-origin ORIGIN` (repeatable; off when none is given): lets a browser page served from one of these
 * origins call both APIs, as OpenZiti's console (ZAC) does when it is hosted apart from the controller.
 *
 * - a preflight (`OPTIONS` with `Access-Control-Request-Method`) from a listed origin is answered 204 at
 *   once, before authentication (a browser sends it without credentials), granting the methods ZAC uses and
 *   the headers it sends: `zt-session` (its session token), `authorization` (its bearer token when it has
 *   one), `content-type` and `accept`;
 * - any other request from a listed origin gets `Access-Control-Allow-Origin` naming that origin (never `*`),
 *   errors included, so the page can read the error envelope;
 * - a request from any other origin gets no CORS header at all: the browser keeps the answer from the page.
 *
 * No credentials mode: ZAC sends its token in a header, never a cookie, so `Allow-Credentials` is not granted.
 */
import type { FastifyInstance } from 'fastify';

export const CORS_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
export const CORS_ALLOWED_HEADERS = 'zt-session, authorization, content-type, accept';
/** A browser may reuse a preflight's answer this long (Chromium keeps it at most 2 hours anyway). */
export const CORS_MAX_AGE_SECONDS = 600;

export function installCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    // The answer depends on Origin whatever it is: a cache must not serve one origin's answer to another.
    reply.header('vary', 'Origin');
    if (typeof origin !== 'string' || !allowed.has(origin)) return done();
    reply.header('access-control-allow-origin', origin);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      void reply
        .status(204)
        .header('access-control-allow-methods', CORS_METHODS)
        .header('access-control-allow-headers', CORS_ALLOWED_HEADERS)
        .header('access-control-max-age', String(CORS_MAX_AGE_SECONDS))
        .send();
      return;
    }
    done();
  });
}
