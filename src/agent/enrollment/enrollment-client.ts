/**
 * The enrollment calls of the client API: the key enrollment JWTs are signed with, and redeeming a token
 * for a certificate (`ott`, a PEM CSR in) or for a password login (`updb`). A token is one-time, so a
 * redemption is never retried: a lost answer would only turn into "already used".
 */
import { ENROLL_PATHS, PEM_CONTENT_TYPE, type EnrollmentCerts } from '../../api/enrollment.js';
import type { ControllerClient } from '../../controller-client/controller-client.js';

export class EnrollmentClient {
  constructor(readonly client: ControllerClient) {}

  /** `GET /enroll/jwks`: a JWK set, served as it is or inside an envelope's `data`. */
  async signingKeys(): Promise<unknown> {
    const body = await this.client.request<unknown>('GET', ENROLL_PATHS.jwks, {
      auth: false,
      reauth: false,
      unwrapped: true,
    });
    if (typeof body === 'object' && body !== null && !('keys' in body) && 'data' in body)
      return (body as { data: unknown }).data;
    return body;
  }

  /** `POST /enroll?method=ott`: the CSR (PEM) for the certificate and the CA that issued it. */
  redeemForCertificate(token: string, csrPem: string): Promise<EnrollmentCerts> {
    return this.client.request<EnrollmentCerts>('POST', ENROLL_PATHS.enroll, {
      query: { method: 'ott', token },
      body: csrPem,
      headers: { 'content-type': PEM_CONTENT_TYPE },
      auth: false,
      reauth: false,
      retry: false,
    });
  }

  /** `POST /enroll?method=updb`: the new password (and the username, which must be the enrollment's). */
  async redeemForPassword(token: string, password: string, username?: string): Promise<void> {
    await this.client.request<unknown>('POST', ENROLL_PATHS.enroll, {
      query: { method: 'updb', token },
      body: { password, ...(username ? { username } : {}) },
      auth: false,
      reauth: false,
      retry: false,
    });
  }
}
