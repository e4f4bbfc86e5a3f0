/** Builders shared by the posture check module tests: a stored check from a spec, and posture data. */
import type {
  ApiSessionPostureData,
  EvaluationContext,
  IdentityPostureData,
  ProcessData,
  PostureCheck,
  PostureCheckSpec,
} from '../../../controller/posture-model.js';
import { getCheckModule } from '../../../controller/posture/checks/index.js';

export const T0 = new Date('2025-01-01T12:00:00.000Z');
export const SESSION = 'api-session-1';

/** T0 plus the given seconds (negative for earlier). */
export function at(seconds: number): Date {
  return new Date(T0.getTime() + seconds * 1000);
}

export function ctx(now: Date = T0): EvaluationContext {
  return { apiSessionId: SESSION, now };
}

/** Parses `body` as a create of `typeId` and returns the stored check, failing the test on problems. */
export function checkFrom<K extends PostureCheck['typeId']>(
  typeId: K,
  body: Record<string, unknown>,
): Extract<PostureCheck, { typeId: K }> {
  const result = getCheckModule(typeId).parse(body, 'create');
  if (!result.ok) throw new Error(`unexpected problems: ${JSON.stringify(result.problems)}`);
  const spec = result.spec as PostureCheckSpec;
  return {
    ...spec,
    id: 'pc-1',
    name: 'check',
    roleAttributes: [],
    tags: {},
    version: 1,
    createdAt: T0,
    updatedAt: T0,
  } as unknown as Extract<PostureCheck, { typeId: K }>;
}

export function data(partial: Partial<IdentityPostureData> = {}): IdentityPostureData {
  return {
    identityId: 'id-1',
    os: null,
    mac: null,
    domain: null,
    processes: [],
    apiSessions: {},
    ...partial,
  };
}

export function session(partial: Partial<ApiSessionPostureData>): Record<string, ApiSessionPostureData> {
  return {
    [SESSION]: {
      apiSessionId: SESSION,
      mfaPassedAt: null,
      wokenAt: null,
      unlockedAt: null,
      sdkInfo: { type: 'postern-agent', version: '0.1.0' },
      ...partial,
    },
  };
}

export const slot = { postureCheckId: 'pc-1', lastUpdatedAt: T0 };

export const HASH_A = 'a'.repeat(64);
export const HASH_B = 'b'.repeat(64);
export const SIGNER = 'c'.repeat(40);

export function proc(path: string, extra: Partial<ProcessData> = {}): ProcessData {
  return { ...slot, path, isRunning: true, hash: HASH_A, signerFingerprints: [SIGNER], ...extra };
}
