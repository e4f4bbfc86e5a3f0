import type { Api } from '../http/typed-app.js';
import type { FastifyRequest } from 'fastify';
import { authOf } from '../auth/guard.js';
import { detail, empty } from '../http/envelope.js';
import { EmptyEnvelope, detailEnvelope, errorResponses } from '../../src/api/resources/envelopes.js';
import type { Actor, MfaService } from './mfa-service.js';
import { readCodeFromGetBody } from './get-body.js';
import {
  AnyBody,
  CodeBody,
  CodeHeaders,
  MfaCreatedEnvelope,
  MfaDetail,
  OptionalCodeBody,
  RecoveryCodesDetail,
} from '../../src/api/resources/mfa.js';
import { createdToWire, recoveryCodesToWire, statusToWire } from './mfa-views.js';

/**
 * `/authenticate/mfa` and `/current-identity/mfa*`, the same on the client and management APIs.
 * Access follows OpenZiti: a partially authenticated session (one that still owes its TOTP) may log in
 * with MFA and enroll (status, start, QR code, verify), which is how an auth policy that requires TOTP
 * gets an unenrolled identity enrolled; removing MFA and the recovery codes need a full session.
 */
const tags = ['MFA'];
const MFA = '/current-identity/mfa';

const actorOf = (request: FastifyRequest): Actor => ({ ...authOf(request), sourceIp: request.ip });

/** The body's `code` first, else the `mfa-validation-code` header. */
const codeOf = (body: { code?: string } | undefined, request: FastifyRequest) =>
  body?.code ?? (request.headers['mfa-validation-code'] as string | undefined);

/** Lets a client POST or DELETE with no body at all (OpenZiti's DELETE sends none). */
const emptyBodyIsObject = async (request: FastifyRequest) => {
  if (request.body === undefined || request.body === null) request.body = {};
};

export function registerSharedRoutes(app: Api, mfa: MfaService): void {
  app.post(
    '/authenticate/mfa',
    {
      config: { access: 'partial' },
      schema: {
        tags: ['Authentication'],
        description:
          'The second factor: a TOTP code or a recovery code. Completes a partially authenticated session.',
        body: CodeBody,
        response: { 200: EmptyEnvelope, ...errorResponses(400, 401, 409, 429) },
      },
    },
    async (request) => {
      await mfa.authenticate(actorOf(request), request.body.code);
      return empty();
    },
  );

  app.get(
    MFA,
    {
      config: { access: 'partial' },
      schema: { tags, response: { 200: detailEnvelope(MfaDetail), ...errorResponses(401, 404) } },
    },
    async (request) => {
      const { identity, session } = authOf(request);
      return detail(statusToWire(await mfa.status(identity, session.id)));
    },
  );

  app.post(
    MFA,
    {
      config: { access: 'partial' },
      preValidation: emptyBodyIsObject,
      schema: { tags, body: AnyBody, response: { 201: MfaCreatedEnvelope, ...errorResponses(401, 409) } },
    },
    async (request, reply) => reply.status(201).send(createdToWire(await mfa.enroll(actorOf(request)))),
  );

  app.post(
    `${MFA}/verify`,
    {
      config: { access: 'partial' },
      schema: {
        tags,
        description:
          'Completes enrollment with a TOTP code (recovery codes are refused here), in the session that started it.',
        body: CodeBody,
        response: { 200: EmptyEnvelope, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      await mfa.verify(actorOf(request), request.body.code);
      return empty();
    },
  );

  app.get(
    `${MFA}/qr-code`,
    {
      config: { access: 'partial' },
      schema: {
        tags,
        response: {
          200: {
            description: 'the provisioning URL as a QR code',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errorResponses(401, 404, 409),
        },
      },
    },
    async (request, reply) =>
      reply
        .type('image/png')
        .header('cache-control', 'no-store')
        .send(await mfa.qrCode(authOf(request).identity, authOf(request).session.id)),
  );

  app.delete(
    MFA,
    {
      config: { access: 'full' },
      preValidation: emptyBodyIsObject,
      schema: {
        tags,
        description:
          'Abandons an unverified enrollment (no code), or removes a verified one with a TOTP or recovery code.',
        headers: CodeHeaders,
        body: OptionalCodeBody,
        response: { 200: EmptyEnvelope, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      await mfa.remove(actorOf(request), codeOf(request.body, request));
      return empty();
    },
  );

  app.get(
    `${MFA}/recovery-codes`,
    {
      config: { access: 'full' },
      schema: {
        tags,
        description:
          'The current recovery codes. The TOTP or recovery code comes in the mfa-validation-code header or a JSON body {code}.',
        headers: CodeHeaders,
        response: { 200: detailEnvelope(RecoveryCodesDetail), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const code = (await readCodeFromGetBody(request)) ?? codeOf(undefined, request);
      const { enrollment, codes } = await mfa.readRecoveryCodes(actorOf(request), code);
      return detail(recoveryCodesToWire(enrollment, codes));
    },
  );

  app.post(
    `${MFA}/recovery-codes`,
    {
      config: { access: 'full' },
      preValidation: emptyBodyIsObject,
      schema: {
        tags,
        description: 'Replaces the recovery codes and returns the new ones; the old ones stop working.',
        headers: CodeHeaders,
        body: OptionalCodeBody,
        response: { 200: detailEnvelope(RecoveryCodesDetail), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { enrollment, codes } = await mfa.regenerateRecoveryCodes(
        actorOf(request),
        codeOf(request.body, request),
      );
      return detail(recoveryCodesToWire(enrollment, codes));
    },
  );
}
