/**
 * Serves a built single-page app from a folder at a path of the controller's own origin: Postern's console
 * (console-routes.ts) and, with `--zac`, OpenZiti's console (zac-routes.ts).
 *
 * - `<path>` redirects to `<path>/`; `<path>/<file>` serves that file of the build, `<path>/<page>` (anything
 *   that is not a file) the index, for the app's own client-side routing;
 * - only files inside the folder (console-files.ts: no parent folder, hidden file, encoded separator or NUL);
 * - hashed assets (`<path>/assets/…`) are cached for a year, the index never (a new build shows at once);
 * - every answer carries the app's headers;
 * - a folder without its index is answered with 503 and the app's own page saying how to build it, looked for
 *   on every request (a build made while the controller runs is served at once). Never a 500.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { contentTypeOf, looksLikeFile, resolveConsoleFile } from './console-files.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface SinglePageApp {
  /** where it is served, without a trailing slash (`/console`) */
  path: string;
  /** the build folder (its index.html and assets) */
  dir: string;
  /** headers on every answer (security policy) */
  headers: Readonly<Record<string, string>>;
  /** the index page's own headers when they vary (the console's CSP names the sign-in providers); else `headers` */
  pageHeaders?: () => Promise<Readonly<Record<string, string>>>;
  /** the HTML answered while the folder has no index.html */
  notBuiltPage: string;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export function registerSinglePageApp(app: FastifyInstance, spa: SinglePageApp): void {
  const index = join(spa.dir, 'index.html');

  const send = async (reply: FastifyReply, file: string, cacheControl: string) =>
    reply
      .headers(file === index && spa.pageHeaders ? await spa.pageHeaders() : spa.headers)
      .header('content-type', contentTypeOf(file))
      .header('cache-control', cacheControl)
      .send(await readFile(file));

  const hidden = { schema: { hide: true } };

  app.get(spa.path, hidden, async (_request, reply) =>
    reply.headers(spa.headers).redirect(`${spa.path}/`, 308),
  );

  app.get(`${spa.path}/*`, hidden, async (request, reply) => {
    if (!(await isFile(index))) {
      return reply
        .status(503)
        .headers(spa.headers)
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('retry-after', '5')
        .send(spa.notBuiltPage);
    }
    // The path as sent (still encoded), so it is decoded exactly once, here.
    const requested = request.url.slice(spa.path.length + 1).split('?')[0]!;
    const file = resolveConsoleFile(spa.dir, requested);
    if (file === null) {
      return reply.status(404).headers(spa.headers).type('text/plain').send('Not found');
    }
    if (await isFile(file)) {
      const cache = requested.startsWith('assets/') ? IMMUTABLE : file === index ? 'no-store' : 'no-cache';
      return send(reply, file, cache);
    }
    if (looksLikeFile(requested)) {
      return reply.status(404).headers(spa.headers).type('text/plain').send('Not found');
    }
    return send(reply, index, 'no-store');
  });
}
