/**
 * Payload checks for every invoke channel. Main runs them before a handler sees a payload: the renderer is
 * untrusted (a compromised page could send anything), so a shape or size that is not exactly what the
 * channel takes is refused, never coerced.
 */
import type {
  CodeRequest,
  CopyAddressRequest,
  EnrollRequest,
  OptionalCodeRequest,
  PromptAnswer,
  RecoveryCodesView,
  SettingsView,
  SignInRequest,
  ViewName,
  ProvidersRequest,
  ProviderSignInRequest,
} from './views.js';
import { isCode } from '../../src/api/codes.js';

export type Guard<T> = (payload: unknown) => payload is T;

type Rec = Record<string, unknown>;

const isRecord = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Only the listed keys, each with its own check; anything extra is refused. */
function hasExactly(
  v: unknown,
  checks: Record<string, (value: unknown) => boolean>,
  optional: string[] = [],
): v is Rec {
  if (!isRecord(v)) return false;
  for (const key of Object.keys(v)) if (!(key in checks)) return false;
  return Object.entries(checks).every(([key, check]) =>
    optional.includes(key) && v[key] === undefined ? true : check(v[key]),
  );
}

const text = (max: number) => (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= max;

export { isCode };

/** http(s) only: the agent must never be pointed at file:, javascript: or the like. */
export function isControllerUrl(v: unknown): v is string {
  if (typeof v !== 'string' || v.length > 2048) return false;
  try {
    const url = new URL(v);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
}

export const isVoid = (v: unknown): v is void => v === undefined || v === null;

export const isSignInRequest: Guard<SignInRequest> = (v): v is SignInRequest =>
  hasExactly(v, { controllerUrl: isControllerUrl, username: text(256), password: text(1024) });

export const isProvidersRequest: Guard<ProvidersRequest> = (v): v is ProvidersRequest =>
  hasExactly(v, { controllerUrl: isControllerUrl });

/** A signer id as the controller makes them (no longer than any id the controller accepts). */
export const isProviderSignInRequest: Guard<ProviderSignInRequest> = (v): v is ProviderSignInRequest =>
  hasExactly(v, { controllerUrl: isControllerUrl, providerId: text(256) });

/** A compact JWT as the renderer sends it (trimmed): three base64url parts, at most 8 KiB. */
const isJwt = (v: unknown) =>
  typeof v === 'string' && v.length <= 8192 && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(v);

export const isEnrollRequest: Guard<EnrollRequest> = (v): v is EnrollRequest =>
  hasExactly(v, { token: isJwt, password: text(1024), username: text(256) }, ['password', 'username']);

export const isCodeRequest: Guard<CodeRequest> = (v): v is CodeRequest => hasExactly(v, { code: isCode });

/** Only a loopback `host:port`, the only kind of address the tunnel listens on. */
export const isCopyAddressRequest: Guard<CopyAddressRequest> = (v): v is CopyAddressRequest =>
  hasExactly(v, {
    address: (a) => typeof a === 'string' && /^(127\.0\.0\.1|\[::1\]):\d{1,5}$/.test(a),
  });

export const isOptionalCodeRequest: Guard<OptionalCodeRequest> = (v): v is OptionalCodeRequest =>
  hasExactly(v, { code: isCode }, ['code']);

export const isPromptAnswer: Guard<PromptAnswer> = (v): v is PromptAnswer =>
  hasExactly(v, { promptId: (id) => Number.isSafeInteger(id) && (id as number) > 0, code: isCode });

export const isRecoveryCodes: Guard<RecoveryCodesView> = (v): v is RecoveryCodesView =>
  hasExactly(v, {
    codes: (codes) => Array.isArray(codes) && codes.length > 0 && codes.length <= 50 && codes.every(isCode),
  });

export const isSettingsUpdate: Guard<Partial<SettingsView>> = (v): v is Partial<SettingsView> =>
  hasExactly(
    v,
    { startAtLogin: (b) => typeof b === 'boolean', useBundledController: (b) => typeof b === 'boolean' },
    ['startAtLogin', 'useBundledController'],
  );

const VIEWS: readonly ViewName[] = ['services', 'mfa', 'settings'];
export const isViewName: Guard<ViewName> = (v): v is ViewName => VIEWS.includes(v as ViewName);
