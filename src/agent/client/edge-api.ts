/**
 * The client-API calls the agent core makes, typed with the wire contract of `src/api`. MFA calls (enrollment
 * and code submission) live in `mfa/mfa-client.ts`.
 */
import type {
  CertAuthenticateRequest,
  CurrentApiSession,
  CurrentIdentity,
  PasswordAuthenticateRequest,
} from '../../api/auth.js';
import { PATHS, SESSION_HEADER } from '../../api/paths.js';
import { INTERCEPT_V1 } from '../../api/data-plane.js';
import type { AnyPostureResponse, PostureResponseReply } from '../../api/posture-responses.js';
import type { ServiceDetail, ServiceUpdates, SessionDetail } from '../../api/services.js';
import type { ClientExternalJwtSigner } from '../sso/provider-signer.js';
import type { ControllerClient } from '../../controller-client/controller-client.js';

/** The largest page OpenZiti serves. */
const PAGE_LIMIT = 500;

export class EdgeApi {
  constructor(readonly client: ControllerClient) {}

  /** A new API session; its token also becomes the client's. Never re-authenticates itself. */
  async authenticate(request: PasswordAuthenticateRequest): Promise<CurrentApiSession> {
    const session = await this.client.request<CurrentApiSession>('POST', PATHS.authenticatePassword, {
      body: request,
      auth: false,
      reauth: false,
    });
    this.client.setSessionToken(session.token);
    return session;
  }

  /**
   * A new API session for the client certificate the connection presents (an enrolled device); its token
   * also becomes the client's. Never re-authenticates itself.
   */
  async authenticateCert(request: CertAuthenticateRequest): Promise<CurrentApiSession> {
    const session = await this.client.request<CurrentApiSession>('POST', PATHS.authenticateCert, {
      body: request,
      auth: false,
      reauth: false,
    });
    this.client.setSessionToken(session.token);
    return session;
  }

  /**
   * A new API session for a token from an external JWT signer (the identity provider), sent as a bearer as
   * OpenZiti's `method=ext-jwt` expects; its session token also becomes the client's.
   */
  async authenticateExtJwt(
    providerToken: string,
    request: CertAuthenticateRequest,
  ): Promise<CurrentApiSession> {
    const session = await this.client.request<CurrentApiSession>('POST', PATHS.authenticateExtJwt, {
      body: request,
      headers: { authorization: `Bearer ${providerToken}` },
      auth: false,
      reauth: false,
    });
    this.client.setSessionToken(session.token);
    return session;
  }

  /** The identity providers this controller accepts tokens from (public: asked before signing in). */
  listExternalJwtSigners(): Promise<ClientExternalJwtSigner[]> {
    return this.client.request<ClientExternalJwtSigner[]>('GET', PATHS.externalJwtSigners, {
      auth: false,
      reauth: false,
    });
  }

  currentApiSession(reauth = true): Promise<CurrentApiSession> {
    return this.client.request<CurrentApiSession>('GET', PATHS.currentApiSession, { reauth });
  }

  async logout(): Promise<void> {
    await this.client.request('DELETE', PATHS.currentApiSession, { reauth: false, retry: false });
  }

  /** Ends another API session than the client's own (the one a renewed sign-in replaced). */
  async endSession(sessionToken: string): Promise<void> {
    await this.client.request('DELETE', PATHS.currentApiSession, {
      headers: { [SESSION_HEADER]: sessionToken },
      auth: false,
      reauth: false,
      retry: false,
    });
  }

  currentIdentity(): Promise<CurrentIdentity> {
    return this.client.request<CurrentIdentity>('GET', PATHS.currentIdentity);
  }

  /** Every service of the identity, following pagination. */
  async listServices(): Promise<ServiceDetail[]> {
    const services: ServiceDetail[] = [];
    for (let offset = 0; ; offset += PAGE_LIMIT) {
      const page = await this.client.requestEnvelope<ServiceDetail[]>('GET', PATHS.services, {
        // intercept.v1 tells the tunnel where to listen for each service.
        query: { limit: PAGE_LIMIT, offset, configTypes: INTERCEPT_V1 },
      });
      services.push(...page.data);
      const total = page.meta.pagination?.totalCount ?? services.length;
      if (page.data.length === 0 || services.length >= total) return services;
    }
  }

  serviceUpdates(): Promise<ServiceUpdates> {
    return this.client.request<ServiceUpdates>('GET', PATHS.serviceUpdates);
  }

  /** Answers many queries in one request; what the reporter sends every cycle that has changes. */
  postPostureBulk(responses: readonly AnyPostureResponse[]): Promise<PostureResponseReply> {
    return this.client.request<PostureResponseReply>('POST', PATHS.postureResponseBulk, { body: responses });
  }

  /** One response; ENDPOINT_STATE goes this way, alone and at once. */
  postPosture(response: AnyPostureResponse): Promise<PostureResponseReply> {
    return this.client.request<PostureResponseReply>('POST', PATHS.postureResponse, { body: response });
  }

  createSession(serviceId: string, type: 'Dial' | 'Bind' = 'Dial'): Promise<SessionDetail> {
    return this.client.request<SessionDetail>('POST', PATHS.sessions, { body: { serviceId, type } });
  }
}
