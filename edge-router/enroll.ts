/**
 * Enrollment: the router redeems its one-time token at the controller with the certificate it just made,
 * and gets its router id and link secret back. The controller records the certificate's fingerprint, which
 * is what agents will pin.
 */
import { ControllerClient } from '../src/controller-client/controller-client.js';
import type { ControllerTrust } from '../src/controller-client/controller-trust.js';
import { isControllerError } from '../src/controller-client/controller-error.js';
import { ROUTER_ENROLL_PATH, type RouterEnrollReply, type RouterEnrollRequest } from '../src/api/index.js';
import { createSelfSignedCertificate } from '../src/common/self-signed-certificate.js';
import type { RouterFiles } from './router-files.js';

export class EnrollmentError extends Error {}

/**
 * `trust`: the controller's CA when its certificate is private (`--controller-ca`), or the fingerprint of the
 * one certificate it serves (the embedded router's); enrollment verifies it.
 */
export async function enrollRouter(
  controllerUrl: string,
  token: string,
  hostnames: string[],
  trust: ControllerTrust = {},
): Promise<RouterFiles> {
  const { certPem, keyPem } = await createSelfSignedCertificate('postern-router', hostnames);
  const body: RouterEnrollRequest = { token: token.trim(), certPem };
  // A one-time token must not be replayed by a retry; the client's envelope parsing is all that is wanted.
  // The router's own transport choice (its link uses the same URL); the agent's plain-http guard is for users.
  const client = new ControllerClient({
    baseUrl: controllerUrl,
    trust,
    timeoutMs: 15_000,
    allowPlainHttp: true,
  });
  let reply: RouterEnrollReply;
  try {
    reply = await client.request<RouterEnrollReply>('POST', ROUTER_ENROLL_PATH, {
      body,
      auth: false,
      reauth: false,
      retry: false,
    });
  } catch (err) {
    throw new EnrollmentError(
      isControllerError(err) && err.status > 0
        ? `enrollment refused (${err.status}): ${err.message}`
        : (err as Error).message,
    );
  } finally {
    client.close();
  }
  return {
    certPem,
    keyPem,
    enrollment: {
      edgeRouterId: reply.edgeRouterId,
      name: reply.name,
      secret: reply.secret,
      controllerUrl,
    },
  };
}
