/**
 * The administrators' console at `/console`: the built single-page app (console/, built by vite), served by
 * the controller on its own origin so the page's only network peer is the management API beside it.
 *
 * - `/console` redirects to `/console/`; `/console/<file>` serves that file of the build, `/console/<page>`
 *   (anything that is not a file) the index, for the console's own routing;
 * - hashed assets (`/console/assets/…`) are cached for a year, the index never (a new build shows at once);
 * - every answer carries a strict CSP (no inline script or style, connections to this origin only, and to the
 *   enabled identity providers' origins, where the console's sign-in fetches discovery and exchanges its
 *   code; no framing), `nosniff` and `no-referrer`;
 * - a missing build is answered with 503 and the command that builds it, never built here: a request must not
 *   make the controller run a build (`npm run controller` and `npm start` build it before listening,
 *   console-build.ts). Never a 500.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { contentTypeOf, looksLikeFile, resolveConsoleFile } from './console-files.js';

export const CONSOLE_PATH = '/console';

/** The console's CSP; `providers`: origins (`https://host[:port]`) its sign-in may also connect to. */
export const consoleCsp = (providers: readonly string[] = []) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // data: for the enrollment QR code, drawn in the page
    "img-src 'self' data:",
    ["connect-src 'self'", ...providers].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');

export const CONSOLE_CSP = consoleCsp();

const headersWith = (csp: string): Readonly<Record<string, string>> => ({
  'content-security-policy': csp,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
});

export const CONSOLE_HEADERS = headersWith(CONSOLE_CSP);

const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface ConsoleOptions {
  /** the build folder (its index.html and assets/) */
  dir: string;
  /** the origins of the identity providers the console may sign in through (external-jwt/signer-origins.ts) */
  providerOrigins?: () => Promise<readonly string[]>;
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Postern console</title></head>
<body><h1>The console is not built</h1>
<p>Build it once with <code>npm run build:console</code> (or <code>npm run build</code>) in the Postern folder, then reload this page.
<code>npm run controller</code> and <code>npm start</code> build it before they start when it is missing.</p>
</body></html>
`;

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export function registerConsole(app: FastifyInstance, options: ConsoleOptions): void {
  const index = join(options.dir, 'index.html');

  // The page's CSP governs what it may connect to; only the index is a page.
  const pageHeaders = async () =>
    options.providerOrigins ? headersWith(consoleCsp(await options.providerOrigins())) : CONSOLE_HEADERS;
  const send = async (reply: FastifyReply, file: string, cacheControl: string) =>
    reply
      .headers(file === index ? await pageHeaders() : CONSOLE_HEADERS)
      .header('content-type', contentTypeOf(file))
      .header('cache-control', cacheControl)
      .send(await readFile(file));

  const hidden = { schema: { hide: true } };

  app.get(CONSOLE_PATH, hidden, async (_request, reply) =>
    reply.headers(CONSOLE_HEADERS).redirect(`${CONSOLE_PATH}/`, 308),
  );

  app.get(`${CONSOLE_PATH}/*`, hidden, async (request, reply) => {
    // Looked for on every request (one stat): a build made while the controller runs is served at once.
    if (!(await isFile(index))) {
      return reply
        .status(503)
        .headers(CONSOLE_HEADERS)
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('retry-after', '5')
        .send(NOT_BUILT_PAGE);
    }
    // The path as sent (still encoded), so it is decoded exactly once, here.
    const requested = request.url.slice(CONSOLE_PATH.length + 1).split('?')[0]!;
    const file = resolveConsoleFile(options.dir, requested);
    if (file === null) {
      return reply.status(404).headers(CONSOLE_HEADERS).type('text/plain').send('Not found');
    }
    if (await isFile(file)) {
      const cache = requested.startsWith('assets/') ? IMMUTABLE : file === index ? 'no-store' : 'no-cache';
      return send(reply, file, cache);
    }
    if (looksLikeFile(requested)) {
      return reply.status(404).headers(CONSOLE_HEADERS).type('text/plain').send('Not found');
    }
    return send(reply, index, 'no-store');
  });
}
