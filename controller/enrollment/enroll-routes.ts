/**
 * The client API's enrollment routes, public as in OpenZiti (the token is the credential):
 * - `POST /enroll?method=ott|updb&token=T` (the method may be left out: the token's own is used),
 *   `POST /enroll/ott?token=T`, `POST /enroll/updb?token=T`;
 * - `GET /enroll/jwks`: the key enrollment JWTs are signed with.
 *
 * An `ott` body is the CSR: PEM as `application/x-pem-file` or `text/plain` (what OpenZiti's SDKs send), or
 * JSON `{"csr"}` / `{"clientCsr"}`. The answer is `{data: {cert, ca}}` as `application/json` (exactly that
 * type: OpenZiti's SDKs read the certificate out of the JSON only then), or the certificate alone as PEM when
 * the client accepts `application/x-pem-file`. A `updb` body is JSON `{"password"}` (`username` optional).
 *
 * Wrong, used or expired tokens count per address like wrong passwords (20 within 5 minutes block the
 * address, growing); each attempt holds its place before it is judged, so a parallel burst gets no more.
 */
import { typed, type Api } from '../http/typed-app.js';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ControllerContext } from '../platform/context.js';
import { PEM_CONTENT_TYPE } from '../../src/api/enrollment.js';
import { ENROLL_BODY_LIMIT, EnrollBodySchema } from '../../src/api/schemas-enrollment.js';
import { EnrollmentCertsEnvelope, Jwks, enrollQuery } from '../../src/api/resources/enrollment.js';
import { rateLimited } from '../api-error.js';
import { empty } from '../http/envelope.js';
import { errorResponses } from '../../src/api/resources/envelopes.js';
import type { EnrollmentAuthority } from './enrollment-authority.js';
import {
  TokenRefused,
  findEnrollment,
  redeemOtt,
  redeemUpdb,
  type Redeemer,
} from './enrollment-redemption.js';

// The body, its size limit and the answer are defined with the wire contract the agent shares
// (src/api/schemas-enrollment.ts); the query and the other answers in src/api/resources/enrollment.ts.

/** The request as the three routes share it: typed from their schemas (a PEM body arrives as `{csr}`). */
type EnrollRequest = FastifyRequest & {
  query: Static<ReturnType<typeof enrollQuery>> & { method?: string };
  body: Static<typeof EnrollBodySchema> | undefined;
};

type Route = 'enroll' | 'ott' | 'updb';

export function registerEnrollRoutes(app: Api, ctx: ControllerContext, authority: EnrollmentAuthority): void {
  // PEM bodies are text; the parsers live in this scope only (the rest of the API speaks JSON alone).
  void app.register(async (plain) => {
    // A child scope starts untyped; its routes are typed from their schemas like the rest.
    const scope = typed(plain);
    // A PEM body is the CSR: read as `{csr}`, it is then validated like the JSON form (fields named).
    scope.addContentTypeParser(
      [PEM_CONTENT_TYPE, 'text/plain'],
      { parseAs: 'string' },
      (_request, body, done) => done(null, { csr: body }),
    );

    const handle = async (route: Route, request: EnrollRequest, reply: FastifyReply) => {
      const ip = request.ip;
      if (!(await authority.limiter.reserve(ip)))
        throw rateLimited(
          Math.max(1, (await authority.limiter.retryAfterMs(ip)) / 1000),
          'Too many enrollment attempts',
        );
      let failed = false;
      try {
        const { query } = request;
        const body = request.body ?? {};
        const enrollment = await findEnrollment(
          ctx,
          query.token ?? body.token,
          route === 'enroll' ? query.method : route,
        );
        const redeemer: Redeemer = { ctx, authority, log: request.log };
        if (enrollment.method === 'updb') {
          await redeemUpdb(redeemer, enrollment, body);
          return empty();
        }
        const issued = await redeemOtt(redeemer, enrollment, body.csr ?? body.clientCsr);
        if ((request.headers.accept ?? '').includes(PEM_CONTENT_TYPE))
          return reply.type(PEM_CONTENT_TYPE).send(issued.certPem);
        // Exactly `application/json`, without a charset (which Fastify adds to what it serializes itself):
        // OpenZiti's Go SDK reads `data.cert` only when the header is that as a whole.
        const answer = { data: { cert: issued.certPem, ca: issued.caPem }, meta: {} };
        return reply.header('content-type', 'application/json').send(Buffer.from(JSON.stringify(answer)));
      } catch (err) {
        failed = err instanceof TokenRefused;
        throw err;
      } finally {
        await authority.limiter.settle(ip, failed);
      }
    };

    const schema = (description: string, withMethod: boolean) => ({
      tags: ['Enroll'],
      description,
      consumes: [PEM_CONTENT_TYPE, 'text/plain', 'application/json'],
      produces: ['application/json', PEM_CONTENT_TYPE],
      querystring: enrollQuery(withMethod),
      body: EnrollBodySchema,
      response: { 200: EnrollmentCertsEnvelope, ...errorResponses(400, 409, 413, 415, 429) },
    });
    const options = (description: string, withMethod = false) => ({
      config: { access: 'public' as const },
      bodyLimit: ENROLL_BODY_LIMIT,
      schema: schema(description, withMethod),
    });

    scope.post(
      '/enroll',
      options(
        "Redeems a one-time enrollment token (`?token=`, the JWT's `jti`): `method=ott` with a PEM CSR answers a " +
          'client certificate from the controller CA; `method=updb` with `{"password"}` sets the password login. ' +
          "Without `method`, the token's own method is used.",
        true,
      ),
      (request, reply) => handle('enroll', request, reply),
    );
    scope.post(
      '/enroll/ott',
      options(
        'Redeems an ott enrollment token with a PEM CSR: answers a client certificate from the controller CA',
      ),
      (request, reply) => handle('ott', request, reply),
    );
    scope.post(
      '/enroll/updb',
      options('Redeems a updb enrollment token with `{"password"}`: sets the identity\'s password login'),
      (request, reply) => handle('updb', request, reply),
    );
  });

  app.get(
    '/enroll/jwks',
    {
      config: { access: 'public' },
      schema: {
        tags: ['Enroll'],
        description:
          "The public key enrollment JWTs are signed with: the TLS certificate's (the controller CA's over plain " +
          "HTTP), its `alg` ES256/ES384/ES512/RS256 by the key; `kid` is that certificate's SHA-256",
        response: { 200: Jwks },
      },
    },
    async () => authority.jwks(),
  );
}
