/**
 * What identity enrollment needs at run time, one per controller: the CA, the key tokens are derived with,
 * the URL JWTs name as their issuer, and the limit on wrong tokens per address. `installEnrollment` makes it
 * at start (creating the CA on the first one); routes reach it through the context.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ControllerContext } from '../context.js';
import type { Enrollment, EnrollmentMethod } from '../model.js';
import { FailureLimiter } from '../auth/failure-limiter.js';
import { loadOrCreateControllerCa, type ControllerCa } from './controller-ca.js';
import { deriveToken, hashToken, newNonce, tokenKeyFrom, type TokenKey } from './enrollment-tokens.js';
import { signEnrollmentJwt } from './enrollment-jwt.js';

export class EnrollmentAuthority {
  private readonly tokenKey: TokenKey;
  /** the controller's URL as clients reach it; set once the server listens */
  private issuer = '';
  private tlsFingerprint: string | undefined;
  /** wrong, used or expired tokens per source address: guessing tokens is stopped like guessing passwords */
  readonly limiter: FailureLimiter;

  constructor(
    private readonly ctx: ControllerContext,
    readonly ca: ControllerCa,
  ) {
    this.tokenKey = tokenKeyFrom(ca.privateKey);
    const { config } = ctx;
    this.limiter = new FailureLimiter({
      maxFailures: config.loginMaxFailuresPerAddress,
      windowMs: config.loginWindowSeconds * 1000,
      baseBlockMs: 30_000,
      maxBlockMs: 15 * 60_000,
      now: () => ctx.clock.now().getTime(),
    });
  }

  /** The listening URL (a wildcard address becomes this machine's name) and the TLS certificate, if any. */
  setEndpoint(url: string, tlsFingerprint: string | undefined): void {
    const parsed = new URL(url);
    if (parsed.hostname === '0.0.0.0' || parsed.hostname === '[::]') parsed.hostname = hostname();
    this.issuer = parsed.origin;
    this.tlsFingerprint = tlsFingerprint;
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

  jwtOf(enrollment: Enrollment): string {
    return signEnrollmentJwt(this.ca, {
      iss: this.issuer,
      sub: enrollment.identityId,
      jti: this.tokenOf(enrollment),
      em: enrollment.method,
      exp: Math.floor(enrollment.expiresAt.getTime() / 1000),
      iat: Math.floor(enrollment.issuedAt.getTime() / 1000),
      ...(this.tlsFingerprint ? { tlsCertSha256: this.tlsFingerprint } : {}),
    });
  }

  private defaultExpiry(now: Date): Date {
    return new Date(now.getTime() + this.ctx.config.enrollmentSeconds * 1000);
  }
}

const authorities = new WeakMap<ControllerContext, EnrollmentAuthority>();

/** Loads (or on the first start makes) the CA and makes enrollment available to the routes. */
export async function installEnrollment(ctx: ControllerContext): Promise<EnrollmentAuthority> {
  const ca = await loadOrCreateControllerCa(
    ctx.config.dataDir,
    ctx.store.authenticators.hasCertAuthenticators(),
  );
  const authority = new EnrollmentAuthority(ctx, ca);
  authorities.set(ctx, authority);
  return authority;
}

export function enrollmentAuthorityOf(ctx: ControllerContext): EnrollmentAuthority {
  const authority = authorities.get(ctx);
  if (!authority) throw new Error('installEnrollment(ctx) must run before enrollment is used');
  return authority;
}

/** For views that show enrollments when they can (a context without enrollment shows none). */
export const maybeEnrollmentAuthorityOf = (ctx: ControllerContext) => authorities.get(ctx);
