/**
 * What crosses the IPC boundary between main and the renderer: plain, structured-clonable data only.
 * Secrets stay in main (passwords go one way, in a sign-in request; tokens and TOTP seeds never cross),
 * except what the user must see: the enrollment secret and recovery codes, shown once.
 */
import type { MfaState } from '../../src/api/mfa.js';
import type { ServiceAccessView } from '../../src/api/service-access.js';

/**
 * `needs-code`: signed in, but the session still owes an authenticator code; `needs-enrollment`: it owes
 * one and the account has no authenticator yet, so the user must set one up first.
 */
export type SessionStatus = 'signed-out' | 'signing-in' | 'needs-code' | 'needs-enrollment' | 'signed-in';

export interface SessionView {
  status: SessionStatus;
  /** The controller the agent talks to (or last talked to); null before the first sign-in. */
  controllerUrl: string | null;
  username: string | null;
  /** The identity's name as the controller knows it, once signed in. */
  identityName: string | null;
  /** False while the controller cannot be reached (the tray shows "disconnected"). */
  reachable: boolean;
  /** The account's authenticator enrollment, once known. */
  mfa: MfaState | null;
  /** Why the session ended or a sign-in failed, in words for the user. */
  message: string | null;
}

/** A service as the list shows it: its access, and where the tunnel listens for it on this device. */
export interface ServiceRowView extends ServiceAccessView {
  /** Loopback addresses the agent's tunnel listens on for this service (`127.0.0.1:8443`); empty when none. */
  localAddresses: string[];
  /** The edge router that carried this service's latest connection (`edge-2`); null before the first. */
  carriedBy: string | null;
}

/**
 * Which mode this device's tunnel is in and why: intercept only through the Postern service (a privileged
 * system service; the app never runs as root), proxy (local listeners and SOCKS5, as the app runs them)
 * otherwise.
 */
export interface ModeView {
  mode: 'intercept' | 'proxy';
  /** why, in words: `the Postern service, pid 812`, `the Postern service is not installed`... */
  why: string;
}

export interface ServicesView {
  services: ServiceRowView[];
  mode: ModeView;
  /** Epoch ms of the last service list the controller sent; null before the first. */
  updatedAt: number | null;
}

export interface CopyAddressRequest {
  address: string;
}

export interface MfaStatusView {
  state: MfaState;
  /** Recovery codes still unused, when the controller says. */
  remainingRecoveryCodes: number | null;
}

/** A started enrollment: everything the enrollment screen shows before the user verifies. */
export interface EnrollmentView {
  /** `data:image/png;base64,...` made in main from the provisioning URL (the renderer has no Node). */
  qrDataUrl: string;
  /** The base32 secret, for typing into an authenticator by hand. */
  secret: string;
  provisioningUrl: string;
  /** Shown once, before verifying, with Save and Copy. */
  recoveryCodes: string[];
}

export interface RecoveryCodesView {
  codes: string[];
}

export type PromptReasonView = 'login' | 'wake' | 'unlock' | 'timeout';

/** The one TOTP prompt that can be open at a time. */
export interface PromptView {
  /** Changes with every new prompt so a late answer to an old one is ignored. */
  id: number;
  reason: PromptReasonView;
  services: { id: string; name: string }[];
  /** Epoch ms when access ends without a code; null when there is no deadline. */
  deadline: number | null;
  attempt: number;
  /** Why the previous code was refused. */
  error: string | null;
  acceptsRecoveryCode: boolean;
}

export interface SettingsView {
  startAtLogin: boolean;
  /** Run the bundled controller on a loopback port; false when the user points at another controller. */
  useBundledController: boolean;
}

/** Where the main window should go (the tray menu's "Services" and "MFA" items). */
export type ViewName = 'services' | 'mfa' | 'settings';

export interface SignInRequest {
  controllerUrl: string;
  username: string;
  password: string;
}

/** The controller whose identity providers the sign-in screen offers. */
export interface ProvidersRequest {
  controllerUrl: string;
}

/** An identity provider the controller accepts (an external JWT signer): "Sign in with <name>". */
export interface ProviderView {
  id: string;
  name: string;
}

/** Sign in through that provider in the system browser (authorization code + PKCE, loopback redirect). */
export interface ProviderSignInRequest {
  controllerUrl: string;
  providerId: string;
}

/**
 * Enrolling this device with the token an administrator sent (pasted or read from a file in the renderer).
 * A password token (`updb`) also carries the new password, and the username when the token does not name it.
 */
export interface EnrollRequest {
  token: string;
  password?: string;
  username?: string;
}

export interface CodeRequest {
  code: string;
}

/** Removing MFA: a TOTP or recovery code, or none to abandon an enrollment that was never verified. */
export interface OptionalCodeRequest {
  code?: string;
}

export interface PromptAnswer {
  promptId: number;
  code: string;
}

export interface SaveResult {
  /** False when the user cancelled the Save dialog. */
  saved: boolean;
}

/** How an invoke answers: errors travel as data because Electron flattens thrown errors to a string. */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

export interface IpcError {
  /** `INVALID_REQUEST`, `FORBIDDEN`, or the controller's error code (`MFA_INVALID_TOKEN`, `UNREACHABLE`, ...). */
  code: string;
  message: string;
}
