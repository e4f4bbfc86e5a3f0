import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

/**
 * The controller's Fastify instance as route registrars see it: requests are typed from the TypeBox schemas
 * that validate them (`body`, `params`, `querystring`, `headers`), and replies from the response schemas.
 */
export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The same instance, typed by its schemas (a type-level change only). */
export const typed = (app: FastifyInstance): Api => app.withTypeProvider<TypeBoxTypeProvider>();
