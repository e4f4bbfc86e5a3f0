import type { FastifyInstance } from 'fastify';
import type { ControllerContext } from '../../context.js';

/** The client API's own routes (services, sessions, posture responses arrive with the posture issue). */
export function registerClientRoutes(_app: FastifyInstance, _ctx: ControllerContext): void {}
