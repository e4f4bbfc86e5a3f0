/**
 * The redirect target of a native app's sign-in (RFC 8252 section 7.3): an HTTP listener on 127.0.0.1 at a
 * port the system picks, alive for one sign-in. It takes exactly one callback, the one carrying the `state`
 * this sign-in sent (anything else gets a 400 and the listener keeps waiting, so a page that probes the port
 * cannot end the sign-in), answers the browser with a plain page telling the user to return to Postern, then
 * closes. It gives up after `timeoutMs`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long the user has to finish at the provider: long enough to type a password and a second factor. */
export const REDIRECT_TIMEOUT_MS = 5 * 60_000;

const DONE_PAGE = `<!doctype html><meta charset="utf-8"><title>Postern</title>
<p>Signed in at your identity provider. You can close this tab and return to Postern.</p>`;
const FAILED_PAGE = `<!doctype html><meta charset="utf-8"><title>Postern</title>
<p>The identity provider did not sign you in. Return to Postern and try again.</p>`;

export class SignInTimeoutError extends Error {
  constructor(seconds: number) {
    super(`the sign-in at the identity provider was not finished within ${seconds} seconds`);
    this.name = 'SignInTimeoutError';
  }
}

export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port>/callback`: what the authorization request names as its redirect_uri. */
  readonly redirectUri: string;
  /** The full callback URL the browser was sent to (code and state in its query). */
  readonly callback: Promise<URL>;
  close(): void;
}

/** Starts listening; `state` is the value the callback must carry. */
export async function openLoopbackRedirect(
  state: string,
  timeoutMs = REDIRECT_TIMEOUT_MS,
): Promise<LoopbackRedirect> {
  let settle!: { resolve: (url: URL) => void; reject: (error: Error) => void };
  const callback = new Promise<URL>((resolve, reject) => (settle = { resolve, reject }));
  // Never an unhandled rejection when the caller closes before awaiting it.
  callback.catch(() => undefined);
  let done = false;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (
      done ||
      req.method !== 'GET' ||
      url.pathname !== '/callback' ||
      url.searchParams.get('state') !== state
    ) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('Not a Postern sign-in.\n');
      return;
    }
    done = true;
    const failed = url.searchParams.has('error') || !url.searchParams.has('code');
    res
      .writeHead(failed ? 400 : 200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      })
      .end(failed ? FAILED_PAGE : DONE_PAGE, () => close());
    settle.resolve(new URL(`${redirectUri}${url.search}`));
  });
  const timer = setTimeout(() => {
    settle.reject(new SignInTimeoutError(Math.round(timeoutMs / 1000)));
    close();
  }, timeoutMs);
  timer.unref();
  function close(): void {
    clearTimeout(timer);
    done = true;
    server.close();
    server.closeAllConnections();
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return {
    redirectUri,
    callback,
    close: () => {
      settle.reject(new Error('the sign-in was cancelled'));
      close();
    },
  };
}
