/**
 * What identity enrollment needs at run time, one per controller: the CA, the key tokens are derived with,
 * the URL JWTs name as their issuer, and the limit on wrong tokens per address. `installEnrollment` makes it
 * at start (creating the CA on the first one); composition hands it to what needs it.
 */
import { X509Certificate, createHmac, createPrivateKey, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouter, Enrollment, EnrollmentMethod } from '../model.js';
import { FailureLimiter } from '../platform/limits/failure-limiter.js';
import { loadOrCreateControllerCa, type ControllerCa } from '../platform/keys/controller-ca.js';
import { deriveToken, hashToken, newNonce, tokenKeyFrom, type TokenKey } from './enrollment-tokens.js';
import { enrollmentJwks, jwtAlgorithmOf, signEnrollmentJwt, type JwtSigner } from './enrollment-jwt.js';

/** The certificate and key the controller serves TLS with (PEM; the certificate may be a chain). */
export interface ServedTls {
  cert: string;
  key: string;
  fingerprint: string;
}

const MAX_KEPT_JWTS = 20_000;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export class EnrollmentAuthority {
  private readonly tokenKey: TokenKey;
  /** the controller's URL as clients reach it; set once the server listens */
  private issuer = '';
  private tlsFingerprint: string | undefined;
  /** the TLS identity's key once serving TLS (what OpenZiti's clients check tokens with), else the CA's */
  private signer: JwtSigner;
  private servedCertificates: string[] | undefined;
  private readonly signedJwts = new Map<string, string>();
  /** wrong, used or expired tokens per source address: guessing tokens is stopped like guessing passwords */
  readonly limiter: FailureLimiter;

  constructor(
    private readonly ctx: ControllerContext,
    readonly ca: ControllerCa,
  ) {
    this.tokenKey = tokenKeyFrom(ca.privateKey);
    this.signer = ca;
    const { config } = ctx;
    const rule = {
      maxFailures: config.loginMaxFailuresPerAddress,
      windowMs: config.loginWindowSeconds * 1000,
      baseBlockMs: 30_000,
      maxBlockMs: 15 * 60_000,
    };
    // Kept where the context keeps limits: shared by every controller on a PostgreSQL database.
    this.limiter = new FailureLimiter(
      { ...rule, now: () => ctx.clock.now().getTime() },
      ctx.limiters.counters('enroll', rule),
    );
  }

  /** The listening URL (a wildcard address becomes this machine's name) and the TLS identity, if any. */
  setEndpoint(url: string, tls: ServedTls | undefined): void {
    const parsed = new URL(url);
    if (parsed.hostname === '0.0.0.0' || parsed.hostname === '[::]') parsed.hostname = hostname();
    this.issuer = parsed.origin;
    this.tlsFingerprint = tls?.fingerprint;
    this.servedCertificates = tls?.cert.match(PEM_CERTIFICATE) ?? undefined;
    this.signer = (tls && this.tlsSigner(tls)) ?? this.ca;
  }

  /** The TLS key as the JWT signer, or undefined (with a warning) for a key OpenZiti's clients cannot check. */
  private tlsSigner(tls: ServedTls): JwtSigner | undefined {
    const privateKey = createPrivateKey(tls.key);
    if (jwtAlgorithmOf(privateKey))
      return { privateKey, cert: new X509Certificate(tls.cert), fingerprint: tls.fingerprint };
    this.ctx.log.warn(
      `enrollment tokens are signed with the controller CA's key: the TLS key (${privateKey.asymmetricKeyType}) ` +
        'is not one OpenZiti clients check tokens with (EC P-256/384/521 or RSA), so only Postern agents can enroll',
    );
    return undefined;
  }

  /** The TLS certificate (and its chain) this controller serves, then its CA: what its clients should trust. */
  trustedCertificatePems(): string[] {
    const served = this.servedCertificates ?? [];
    return [...served, this.ca.certPem];
  }

  /** The key enrollment JWTs are signed with, as `/enroll/jwks` publishes it. */
  jwks() {
    return enrollmentJwks(this.signer);
  }

  /** A new enrollment with a fresh token, to store. */
  issue(
    identityId: string,
    method: EnrollmentMethod,
    username: string | null,
    expiresAt: Date | undefined,
  ): Enrollment {
    const now = this.ctx.clock.now();
    const id = randomUUID();
    const nonce = newNonce();
    return {
      id,
      identityId,
      method,
      username: method === 'updb' ? username : null,
      tokenHash: hashToken(deriveToken(this.tokenKey, id, nonce)),
      nonce,
      issuedAt: now,
      expiresAt: expiresAt ?? this.defaultExpiry(now),
      usedAt: null,
      createdAt: now,
      updatedAt: now,
    };
  }

  /** The same enrollment with a new token and expiry: the old token no longer matches. */
  refreshed(enrollment: Enrollment, expiresAt: Date | undefined): Enrollment {
    const now = this.ctx.clock.now();
    const nonce = newNonce();
    return {
      ...enrollment,
      nonce,
      tokenHash: hashToken(deriveToken(this.tokenKey, enrollment.id, nonce)),
      issuedAt: now,
      expiresAt: expiresAt ?? this.defaultExpiry(now),
      updatedAt: now,
    };
  }

  tokenOf(enrollment: Enrollment): string {
    return deriveToken(this.tokenKey, enrollment.id, enrollment.nonce);
  }

  /**
   * The enrollment's JWT. Signed once per token and kept: lists show a JWT on every identity row, and signing
   * anew each time made a page of identities cost a signature per row. A refresh (new nonce), another expiry
   * or another signer makes a new one.
   */
  jwtOf(enrollment: Enrollment): string {
    const key = `${enrollment.id}:${enrollment.nonce}:${enrollment.expiresAt.getTime()}:${this.signer.fingerprint}:${this.issuer}`;
    const kept = this.signedJwts.get(key);
    if (kept) return kept;
    const jwt = signEnrollmentJwt(this.signer, {
      iss: this.issuer,
      sub: enrollment.identityId,
      jti: this.tokenOf(enrollment),
      em: enrollment.method,
      exp: Math.floor(enrollment.expiresAt.getTime() / 1000),
      iat: Math.floor(enrollment.issuedAt.getTime() / 1000),
      ...(this.tlsFingerprint ? { tlsCertSha256: this.tlsFingerprint } : {}),
    });
    // Bounded: outstanding enrollments are few next to what memory holds, and a clear only costs signatures.
    if (this.signedJwts.size >= MAX_KEPT_JWTS) this.signedJwts.clear();
    this.signedJwts.set(key, jwt);
    return jwt;
  }

  /**
   * A router's one-time enrollment token: 64 hex digits (never a leading `-`, which the router's `--enroll`
   * would read as an option), an HMAC of the router's id and a nonce under the same key as identities' tokens,
   * with a label of its own. So the router's detail can show it again until it is redeemed, as OpenZiti shows
   * `enrollmentToken` and `enrollmentJwt` there, while the database holds only its hash and the nonce.
   */
  routerToken(routerId: string, nonce: string): string {
    return createHmac('sha256', this.tokenKey).update(`edge-router\n${routerId}\n${nonce}`).digest('hex');
  }

  /** The outstanding router enrollment as OpenZiti's `erott` JWT; null once redeemed or for a shown-once token. */
  routerJwtOf(router: EdgeRouter): string | null {
    const nonce = router.enrollmentNonce;
    if (!nonce || !router.enrollmentTokenHash || !router.enrollmentExpiresAt) return null;
    const expiresAt = Date.parse(router.enrollmentExpiresAt);
    const key = `router:${router.id}:${nonce}:${expiresAt}:${this.signer.fingerprint}:${this.issuer}`;
    const kept = this.signedJwts.get(key);
    if (kept) return kept;
    const jwt = signEnrollmentJwt(this.signer, {
      iss: this.issuer,
      sub: router.id,
      jti: this.routerToken(router.id, nonce),
      em: 'erott',
      exp: Math.floor(expiresAt / 1000),
      iat: Math.floor(Date.parse(router.enrollmentCreatedAt ?? router.enrollmentExpiresAt) / 1000),
      ...(this.tlsFingerprint ? { tlsCertSha256: this.tlsFingerprint } : {}),
    });
    if (this.signedJwts.size >= MAX_KEPT_JWTS) this.signedJwts.clear();
    this.signedJwts.set(key, jwt);
    return jwt;
  }

  private defaultExpiry(now: Date): Date {
    return new Date(now.getTime() + this.ctx.config.enrollmentSeconds * 1000);
  }
}

/**
 * Loads (or on the first start makes) the CA and answers the controller's one enrollment authority; composition
 * hands it to the routes and services that issue, show or redeem enrollments.
 */
export async function installEnrollment(ctx: ControllerContext): Promise<EnrollmentAuthority> {
  const ca = await loadOrCreateControllerCa(
    ctx.config.dataDir,
    await ctx.store.authenticators.hasCertAuthenticators(),
  );
  return new EnrollmentAuthority(ctx, ca);
}
