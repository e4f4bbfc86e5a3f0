/**
 * An OpenID provider's token side for tests, on a loopback port: its discovery document and JWKS served by a
 * real HTTP server, its keys made with jose (RS256), tokens signed on demand, and a key rotation (a new key
 * with a new `kid` replaces the old one at the JWKS endpoint). Counts JWKS fetches, so a test can see the
 * controller follow a rotation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface TokenOptions {
  audience?: string;
  issuer?: string;
  /** seconds from now; negative: already expired */
  expiresIn?: number;
  kid?: string;
}

export class TestOidcProvider {
  issuer = '';
  jwksFetches = 0;
  private key!: SigningKey;
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      if (req.url === '/jwks') {
        this.jwksFetches++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ keys: [this.key.publicJwk] }));
      } else if (req.url === '/.well-known/openid-configuration') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ issuer: this.issuer, jwks_uri: this.jwksUri }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
  }

  static async start(): Promise<TestOidcProvider> {
    const provider = new TestOidcProvider();
    provider.key = await newKey();
    await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
    const { port } = provider.server.address() as AddressInfo;
    provider.issuer = `http://127.0.0.1:${port}/realms/test`;
    return provider;
  }

  get jwksUri(): string {
    return `${new URL(this.issuer).origin}/jwks`;
  }

  /** the public key of the current signing key, as a JWK (what an attacker can read too) */
  get publicJwk(): JWK {
    return this.key.publicJwk;
  }

  get kid(): string {
    return this.key.kid;
  }

  /** A signed token with these claims (iss, aud, iat, exp filled in unless given). */
  async token(claims: JWTPayload, options: TokenOptions = {}, key: SigningKey = this.key): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? key.kid, typ: 'JWT' })
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.audience ?? 'postern-test-client')
      .setIssuedAt(now)
      .setExpirationTime(now + (options.expiresIn ?? 300))
      .sign(key.privateKey);
  }

  /** A token signed by a key this provider never published (with a `kid` of its own). */
  async foreignToken(claims: JWTPayload): Promise<string> {
    return this.token(claims, {}, await newKey());
  }

  /** A new signing key replaces the old at the JWKS endpoint. */
  async rotate(): Promise<void> {
    this.key = await newKey();
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}
