import type { FastifyInstance } from 'fastify';
import type { ControllerContext } from '../context.js';

/**
 * Posture evaluation's entry points (filled by the posture-evaluation issue): `installPosture` wires the
 * evaluator to the controller's events once at start; the route functions add its endpoints.
 */
export function installPosture(_ctx: ControllerContext): { close(): void } {
  return { close() {} };
}

/** Client API: services with posture queries, sessions, posture responses, service updates. */
export function registerPostureClientRoutes(_app: FastifyInstance, _ctx: ControllerContext): void {}

/** Management API: posture data and failed service requests of an identity. */
export function registerPostureManagementRoutes(_app: FastifyInstance, _ctx: ControllerContext): void {}
