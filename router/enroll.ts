/**
 * Enrollment: the router redeems its one-time token at the controller with the certificate it just made,
 * and gets its router id and link secret back. The controller records the certificate's fingerprint, which
 * is what agents will pin.
 */
import {
  CLIENT_API_PREFIX,
  ROUTER_ENROLL_PATH,
  type RouterEnrollReply,
  type RouterEnrollRequest,
} from '../src/api/index.js';
import { createRouterCertificate } from './certificate.js';
import type { RouterFiles } from './router-files.js';

export class EnrollmentError extends Error {}

export async function enrollRouter(
  controllerUrl: string,
  token: string,
  hostnames: string[],
): Promise<RouterFiles> {
  const { certPem, keyPem } = await createRouterCertificate(hostnames);
  const url = `${controllerUrl.replace(/\/+$/, '')}${CLIENT_API_PREFIX}${ROUTER_ENROLL_PATH}`;
  const body: RouterEnrollRequest = { token: token.trim(), certPem };
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new EnrollmentError(`cannot reach the controller at ${controllerUrl}: ${(err as Error).message}`);
  }
  const reply = (await response.json().catch(() => ({}))) as {
    data?: RouterEnrollReply;
    error?: { message?: string };
  };
  if (!response.ok || !reply.data)
    throw new EnrollmentError(
      `enrollment refused (${response.status}): ${reply.error?.message ?? 'no reason given'}`,
    );
  return {
    certPem,
    keyPem,
    enrollment: {
      edgeRouterId: reply.data.edgeRouterId,
      name: reply.data.name,
      secret: reply.data.secret,
      controllerUrl,
    },
  };
}
