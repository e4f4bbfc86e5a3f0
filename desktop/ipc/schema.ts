/**
 * The one IPC contract between main and the renderer (Mullvad's ipc-schema idea). Each channel is declared
 * once with its request and response types; `bridge.ts` derives from this object the preload bridge the
 * renderer calls, the handler table main must implement and the events main may send, so a change here
 * fails type-checking on both sides at once. Channel strings are derived (`group:key`), never written.
 *
 * `invoke` channels are renderer → main requests; each carries the guard main runs on the payload.
 * `notify` channels are main → renderer events.
 */
import {
  isCodeRequest,
  isCopyAddressRequest,
  isEnrollRequest,
  isOptionalCodeRequest,
  isPromptAnswer,
  isRecoveryCodes,
  isSettingsUpdate,
  isSignInRequest,
  isProviderSignInRequest,
  isProvidersRequest,
  isViewName,
  isVoid,
  type Guard,
} from './guards.js';
import type {
  CodeRequest,
  CopyAddressRequest,
  EnrollRequest,
  EnrollmentView,
  MfaStatusView,
  OptionalCodeRequest,
  PromptAnswer,
  PromptView,
  RecoveryCodesView,
  SaveResult,
  ServicesView,
  SessionView,
  SettingsView,
  SignInRequest,
  ViewName,
  ProviderSignInRequest,
  ProvidersRequest,
  ProviderView,
} from './views.js';

export interface InvokeChannel<Req, Res> {
  kind: 'invoke';
  validate: Guard<Req>;
  /** Type carriers only; never set at run time. */
  request?: Req;
  response?: Res;
}

export interface NotifyChannel<T> {
  kind: 'notify';
  value?: T;
}

function invoke<Res>(): InvokeChannel<void, Res>;
function invoke<Req, Res>(validate: Guard<Req>): InvokeChannel<Req, Res>;
function invoke<Req, Res>(validate: Guard<Req> = isVoid as unknown as Guard<Req>): InvokeChannel<Req, Res> {
  return { kind: 'invoke', validate };
}

const notify = <T>(): NotifyChannel<T> => ({ kind: 'notify' });

export const ipcSchema = {
  session: {
    get: invoke<SessionView>(),
    /** Resolves once signed in; a TOTP the controller asks for meanwhile arrives as a `login` prompt. */
    signIn: invoke<SignInRequest, SessionView>(isSignInRequest),
    /** The identity providers a controller offers (none where it offers none or cannot be reached). */
    providers: invoke<ProvidersRequest, ProviderView[]>(isProvidersRequest),
    /**
     * Signs in through a provider in the system browser (PKCE, a loopback redirect); resolves once signed in,
     * or refused, or after the redirect's 5 minutes.
     */
    signInWithProvider: invoke<ProviderSignInRequest, SessionView>(isProviderSignInRequest),
    /**
     * Enrolls this device with a token and signs in: with a certificate for a key made in main (`ott`), or
     * with the new password (`updb`). Refused, it says why (expired, altered, already used...).
     */
    enroll: invoke<EnrollRequest, SessionView>(isEnrollRequest),
    signOut: invoke<SessionView>(),
    changed: notify<SessionView>(),
  },
  services: {
    get: invoke<ServicesView>(),
    /** Runs a posture cycle now, then answers the refreshed list. */
    checkAgain: invoke<ServicesView>(),
    /** Copies one of the tunnel's local addresses to the clipboard. */
    copyAddress: invoke<CopyAddressRequest, void>(isCopyAddressRequest),
    changed: notify<ServicesView>(),
  },
  mfa: {
    status: invoke<MfaStatusView>(),
    /** A TOTP or recovery code entered without a prompt (a service waiting for one, or a sign-in owing one). */
    submitCode: invoke<CodeRequest, ServicesView>(isCodeRequest),
    startEnrollment: invoke<EnrollmentView>(),
    verifyEnrollment: invoke<CodeRequest, MfaStatusView>(isCodeRequest),
    remove: invoke<OptionalCodeRequest, MfaStatusView>(isOptionalCodeRequest),
    recoveryCodes: invoke<CodeRequest, RecoveryCodesView>(isCodeRequest),
    regenerateRecoveryCodes: invoke<CodeRequest, RecoveryCodesView>(isCodeRequest),
    /** Opens a Save dialog in main and writes one code per line. */
    saveRecoveryCodes: invoke<RecoveryCodesView, SaveResult>(isRecoveryCodes),
    copyRecoveryCodes: invoke<RecoveryCodesView, void>(isRecoveryCodes),
  },
  prompt: {
    get: invoke<PromptView | null>(),
    answer: invoke<PromptAnswer, void>(isPromptAnswer),
    dismiss: invoke<void>(),
    /** The open prompt, or null once it closed. */
    changed: notify<PromptView | null>(),
  },
  settings: {
    get: invoke<SettingsView>(),
    update: invoke<Partial<SettingsView>, SettingsView>(isSettingsUpdate),
  },
  app: {
    /** Brings the main window forward on a view (the TOTP window's "Open Postern"). */
    show: invoke<ViewName, void>(isViewName),
    navigate: notify<ViewName>(),
  },
} as const;

export type IpcSchema = typeof ipcSchema;
export type GroupName = keyof IpcSchema;
