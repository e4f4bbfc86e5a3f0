import type { FastifyInstance } from 'fastify';
import type { ControllerContext } from '../context.js';

/**
 * MFA TOTP's entry points (filled by the MFA issue): `installMfa` wires enrollment state into the
 * controller (e.g. `ctx.isMfaEnrolled`) once at start; the route functions add its endpoints.
 */
export function installMfa(_ctx: ControllerContext): { close(): void } {
  return { close() {} };
}

/** Routes both APIs serve for the current identity: /authenticate/mfa and /current-identity/mfa*. */
export function registerMfaSharedRoutes(_app: FastifyInstance, _ctx: ControllerContext): void {}

/** Management API: admin removal of an identity's MFA, the MFA audit log. */
export function registerMfaManagementRoutes(_app: FastifyInstance, _ctx: ControllerContext): void {}
