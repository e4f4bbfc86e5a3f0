/**
 * The administrators' console at `/console`: the built single-page app (console/, built by vite), served by
 * the controller on its own origin so the page's only network peer is the management API beside it
 * (single-page-app.ts serves it).
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
import type { FastifyInstance } from 'fastify';
import { registerSinglePageApp } from './single-page-app.js';

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

export function registerConsole(app: FastifyInstance, options: ConsoleOptions): void {
  const origins = options.providerOrigins;
  registerSinglePageApp(app, {
    path: CONSOLE_PATH,
    dir: options.dir,
    headers: CONSOLE_HEADERS,
    notBuiltPage: NOT_BUILT_PAGE,
    // The page's CSP governs what it may connect to; only the index is a page.
    ...(origins ? { pageHeaders: async () => headersWith(consoleCsp(await origins())) } : {}),
  });
}
