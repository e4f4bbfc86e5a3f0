/**
 * The agent service's protocol over its local socket (framing: service-frames.ts). Each request is declared
 * once below with its parameters' check and its result type; the server's handler table and the client's
 * `request` are typed from this object, so a change here fails type-checking on both sides.
 *
 *   client → service  {"id": 1, "type": "status"}                      (params only where the request takes them)
 *   service → client  {"id": 1, "result": {...}}  or  {"id": 1, "error": {"code", "message", "field"?}}
 *   service → client  {"event": "services", "data": [...]}             (after `subscribe`)
 *
 * Every incoming frame is checked (checkRequestFrame) before a handler sees it: the peer is a local user
 * the service allowed, not a trusted party, so an unknown field, type or value is refused by name.
 */
import type { AgentNotice, TotpPrompt } from '../../api/prompts.js';
import type { ServiceAccessView } from '../../api/service-access.js';
import { isCode } from '../../api/codes.js';
import type { SessionStatus } from '../session/session-manager.js';
import type { MfaState } from '../../api/mfa.js';
import type { TunnelEvent } from '../tunnel/tunnel-events.js';

/** Bumped when a request or result changes incompatibly; `hello` tells it. */
export const PROTOCOL_VERSION = 1;

export type ServiceMode = 'intercept' | 'proxy';

export interface HelloResult {
  /** Postern's version */
  version: string;
  protocol: number;
  /** `intercept` only while intercept mode is actually active */
  mode: ServiceMode;
  /** why this mode, in words */
  why: string;
  pid: number;
}

/** The agent's session as the service shares it (no API session id: a local user has no use for it). */
export type ServiceSessionStatus = Omit<SessionStatus, 'apiSessionId'> & {
  reachable: boolean | undefined;
  mfa: MfaState | undefined;
};

export interface ServiceEntry extends ServiceAccessView {
  /**
   * Where programs reach it: in intercept mode its real names/addresses with ports (`wiki.corp:443`), in
   * proxy mode the service's local listeners (`127.0.0.1:8443`).
   */
  addresses: string[];
  /** the edge router that carried its latest connection (`edge-2`); null before the first */
  carriedBy: string | null;
}

export interface StatusResult {
  mode: ServiceMode;
  why: string;
  /** null while the service has no agent (no controller configured) */
  session: ServiceSessionStatus | null;
  /** why the agent is not signed in, when it is not */
  problem: string | null;
  services: ServiceEntry[];
}

export interface SubmitCodeParams {
  code: string;
}

export interface SubmitCodeResult {
  /** false: the code was refused; the prompt is still open (a `code-wanted` event says so again) */
  accepted: boolean;
}

export type ServiceEvent =
  | { event: 'services'; data: ServiceEntry[] }
  | { event: 'tunnel'; data: TunnelEvent }
  /** the service needs an authenticator code; answer with `submitCode` */
  | { event: 'code-wanted'; data: TotpPrompt }
  /** the code prompt closed (answered, no longer needed, or the agent stopped) */
  | { event: 'code-prompt-closed'; data: Record<string, never> }
  | { event: 'notice'; data: AgentNotice };

export type EventName = ServiceEvent['event'];

/** A problem with a frame: the field it is about, in words. */
export interface FrameProblem {
  field: string;
  message: string;
}

export interface ErrorBody {
  /** INVALID_FRAME (the frame, named by `field`), NOT_ALLOWED (the peer), FAILED (the request could not run) */
  code: 'INVALID_FRAME' | 'NOT_ALLOWED' | 'FAILED';
  message: string;
  field?: string;
}

export interface ResponseFrame<T = unknown> {
  id: number | null;
  result?: T;
  error?: ErrorBody;
}

type ParamsCheck = (params: unknown) => FrameProblem | null;

interface RequestDeclaration<P, R> {
  check: ParamsCheck;
  /** type carriers only; never set at run time */
  params?: P;
  result?: R;
}

const request = <P, R>(check: ParamsCheck): RequestDeclaration<P, R> => ({ check });

const noParams: ParamsCheck = (params) =>
  params === undefined ? null : { field: 'params', message: 'this request takes no params' };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const codeParams: ParamsCheck = (params) => {
  if (!isRecord(params)) return { field: 'params', message: 'params must be an object with a code' };
  const extra = Object.keys(params).find((key) => key !== 'code');
  if (extra) return { field: `params.${extra}`, message: `unknown field params.${extra}` };
  if (!isCode(params.code))
    return {
      field: 'params.code',
      message: 'params.code must be a 6-8 digit authenticator code or a recovery code',
    };
  return null;
};

export const serviceRequests = {
  /** who is there: version, mode and why, pid */
  hello: request<void, HelloResult>(noParams),
  /** the agent's session and services, each with the addresses it is reached at */
  status: request<void, StatusResult>(noParams),
  /** pushes ServiceEvents on this connection from now on */
  subscribe: request<void, { subscribed: true }>(noParams),
  /** answers the code prompt the service raised (`code-wanted`) */
  submitCode: request<SubmitCodeParams, SubmitCodeResult>(codeParams),
} as const;

export type ServiceRequests = typeof serviceRequests;
export type RequestType = keyof ServiceRequests;
export type ParamsOf<T extends RequestType> =
  ServiceRequests[T] extends RequestDeclaration<infer P, unknown> ? P : never;
export type ResultOf<T extends RequestType> =
  ServiceRequests[T] extends RequestDeclaration<unknown, infer R> ? R : never;

export interface RequestFrame<T extends RequestType = RequestType> {
  id: number;
  type: T;
  params?: ParamsOf<T>;
}

const FRAME_KEYS = new Set(['id', 'type', 'params']);

/** The frame as a request, or the first field that is wrong with it. */
export function checkRequestFrame(value: unknown): { frame: RequestFrame } | { problem: FrameProblem } {
  if (!isRecord(value)) return { problem: { field: 'frame', message: 'a frame must be a JSON object' } };
  const extra = Object.keys(value).find((key) => !FRAME_KEYS.has(key));
  if (extra) return { problem: { field: extra, message: `unknown field '${extra}'` } };
  if (!Number.isSafeInteger(value.id) || (value.id as number) < 0)
    return { problem: { field: 'id', message: 'id must be a non-negative integer' } };
  const type = value.type;
  if (typeof type !== 'string' || !Object.hasOwn(serviceRequests, type))
    return {
      problem: {
        field: 'type',
        message: `type must be one of ${Object.keys(serviceRequests).join(', ')}`,
      },
    };
  const problem = serviceRequests[type as RequestType].check(value.params);
  if (problem) return { problem };
  return { frame: value as unknown as RequestFrame };
}

/** The id of a frame that failed its check, when it had a usable one (so the client can match the error). */
export function idOf(value: unknown): number | null {
  return isRecord(value) && Number.isSafeInteger(value.id) ? (value.id as number) : null;
}

/** What a client accepts from the service: a response to one of its ids, or an event. */
export function isResponseFrame(value: unknown): value is ResponseFrame {
  return isRecord(value) && 'id' in value && ('result' in value || isRecord(value.error));
}

export function isEventFrame(value: unknown): value is ServiceEvent {
  return isRecord(value) && typeof value.event === 'string' && 'data' in value;
}
