/**
 * Certificate sign-in (`POST /authenticate?method=cert`): the client certificate the TLS connection
 * presented must be issued by the controller's CA (checked here, whatever the TLS layer let through), be
 * within its validity, and be the certificate of a `cert` authenticator of an enabled identity whose auth
 * policy allows certificates. Deleting the authenticator (or the identity) revokes it. Throws 400 over plain
 * HTTP (there is no certificate to present) and 401 INVALID_AUTH for every refusal, saying why only in the log.
 */
import { isDisabledNow } from '../identity-disabled.js';
import { X509Certificate, createHash } from 'node:crypto';
import { TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import * as x509 from '@peculiar/x509';
import type { ControllerContext } from '../platform/context.js';
import type { CertAuthenticator, Identity } from '../model.js';
import type { ControllerCa } from '../platform/keys/controller-ca.js';
import { ApiError, invalidAuth } from '../api-error.js';

export async function checkCertificate(
  ctx: ControllerContext,
  ca: ControllerCa,
  socket: Socket,
  log: FastifyBaseLogger,
): Promise<{ authenticator: CertAuthenticator; identity: Identity }> {
  if (!(socket instanceof TLSSocket))
    throw new ApiError(
      400,
      'INVALID_AUTH_METHOD',
      'Certificate sign-in needs HTTPS; this controller serves plain HTTP (start it with --https)',
      { field: 'method', reason: 'certificate sign-in needs HTTPS', value: 'cert' },
    );
  const refuse = (why: string, fingerprint?: string): never => {
    log.info({ ip: socket.remoteAddress, fingerprint, why }, 'certificate authentication failed');
    throw invalidAuth();
  };
  const raw = socket.getPeerCertificate().raw as Buffer | undefined;
  if (!raw?.length) return refuse('no client certificate was presented');
  const fingerprint = createHash('sha256').update(raw).digest('hex');
  let cert: X509Certificate;
  let validity: { notBefore: Date; notAfter: Date };
  try {
    cert = new X509Certificate(raw);
    validity = new x509.X509Certificate(new Uint8Array(raw));
  } catch {
    return refuse('the client certificate cannot be read', fingerprint);
  }
  if (!cert.checkIssued(ca.cert) || !cert.verify(ca.cert.publicKey))
    return refuse("the client certificate is not issued by this controller's CA", fingerprint);
  const now = ctx.clock.now().getTime();
  if (now < validity.notBefore.getTime() || now > validity.notAfter.getTime())
    return refuse('the client certificate is outside its validity period', fingerprint);
  const authenticator = await ctx.store.authenticators.getByFingerprint(fingerprint);
  if (!authenticator) return refuse('no cert authenticator has this certificate (revoked?)', fingerprint);
  const identity = await ctx.store.identities.get(authenticator.identityId);
  if (!identity || isDisabledNow(identity, ctx.clock.now()))
    return refuse('the identity is gone or disabled', fingerprint);
  const policy =
    (await ctx.store.authPolicies.get(identity.authPolicyId)) ??
    (await ctx.store.authPolicies.get('default'));
  if (policy && !policy.primary.cert.allowed)
    return refuse("the identity's auth policy does not allow certificate sign-in", fingerprint);
  return { authenticator, identity };
}
