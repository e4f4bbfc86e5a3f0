/**
 * `GET /.well-known/est/cacerts` (RFC 7030): the certificates a client should trust for this controller, as
 * OpenZiti's clients fetch them while enrolling: base64 of a certs-only PKCS#7, `application/pkcs7-mime`.
 * OpenZiti's enroller asks for it when the controller's TLS certificate is not one it already trusts (a
 * self-signed one), having checked the enrollment JWT with that certificate's key; what comes back is the TLS
 * certificate (with its chain) and the controller CA that issues the client certificates.
 */
import * as x509 from '@peculiar/x509';
import type { FastifyInstance } from 'fastify';
import type { EnrollmentAuthority } from './enrollment-authority.js';

export const EST_CACERTS_PATH = '/.well-known/est/cacerts';

export function registerEstCaCerts(app: FastifyInstance, authority: EnrollmentAuthority): void {
  app.get(
    EST_CACERTS_PATH,
    { config: { access: 'public' }, schema: { hide: true } },
    async (_request, reply) => {
      const certificates = authority.trustedCertificatePems().map((pem) => new x509.X509Certificate(pem));
      const pkcs7 = new x509.X509Certificates(certificates).export('base64');
      return reply
        .header('content-type', 'application/pkcs7-mime')
        .header('content-transfer-encoding', 'base64')
        .send(pkcs7);
    },
  );
}
