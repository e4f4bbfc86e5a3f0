/**
 * The store's flat repositories by name (`SyncRepositories`, without the posture store, whose parts are
 * repositories of their own): what SqliteStore wraps one by one, and what a test walks to see every call.
 */
import type { SyncRepositories } from './repository.js';

export type FlatRepositories = Omit<
  SyncRepositories,
  'countIdentitiesWithAuthPolicy' | 'identityByExternalId' | 'posture'
>;

export const FLAT_REPOSITORIES: readonly (keyof FlatRepositories)[] = [
  'identities',
  'services',
  'postureChecks',
  'servicePolicies',
  'authPolicies',
  'configTypes',
  'configs',
  'edgeRouters',
  'edgeRouterPolicies',
  'serviceEdgeRouterPolicies',
  'authenticators',
  'enrollments',
  'apiSessions',
  'mfa',
  'deadlines',
  'postureCheckExceptions',
  'postureCheckExceptionHistory',
  'postureCheckStates',
  'externalJwtSigners',
  'auditEvents',
  'webhooks',
  'deliveries',
];
