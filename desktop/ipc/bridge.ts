/**
 * Types and wiring derived from the schema: the bridge the preload exposes as `window.postern`, the
 * handler table main implements, and the events main sends. Nothing here names a channel by hand.
 */
import {
  ipcSchema,
  type GroupName,
  type InvokeChannel,
  type IpcSchema,
  type NotifyChannel,
} from './schema.js';
import type { IpcResult } from './views.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- `any` only inside conditional-type matching */
type AnyInvoke = InvokeChannel<any, any>;
type AnyNotify = NotifyChannel<any>;
/* eslint-enable @typescript-eslint/no-explicit-any */

type InvokeKeys<G> = { [K in keyof G]: G[K] extends AnyInvoke ? K : never }[keyof G] & string;
type NotifyKeys<G> = { [K in keyof G]: G[K] extends AnyNotify ? K : never }[keyof G] & string;

export type RequestOf<C> = C extends InvokeChannel<infer Req, unknown> ? Req : never;
export type ResponseOf<C> = C extends InvokeChannel<unknown, infer Res> ? Res : never;
export type EventOf<C> = C extends NotifyChannel<infer T> ? T : never;

/** A call without a payload takes no argument at all. */
type Call<Req, R> = [Req] extends [void] ? () => R : (request: Req) => R;

export type Listen<T> = (listener: (value: T) => void) => () => void;

type Listeners<G> = { [K in NotifyKeys<G> as `on${Capitalize<K>}`]: Listen<EventOf<G[K]>> };

/** `window.postern`: invokes answer a result envelope; `onX` subscribes and returns the unsubscribe. */
export type PosternBridge = {
  [G in GroupName]: {
    [K in InvokeKeys<IpcSchema[G]>]: Call<
      RequestOf<IpcSchema[G][K]>,
      Promise<IpcResult<ResponseOf<IpcSchema[G][K]>>>
    >;
  } & Listeners<IpcSchema[G]>;
};

/** What the renderer calls: the bridge with results unwrapped (a failure throws PosternError). */
export type PosternClient = {
  [G in GroupName]: {
    [K in InvokeKeys<IpcSchema[G]>]: Call<RequestOf<IpcSchema[G][K]>, Promise<ResponseOf<IpcSchema[G][K]>>>;
  } & Listeners<IpcSchema[G]>;
};

/** What main implements for every invoke channel. The payload has passed the channel's guard. */
export type IpcHandlers = {
  [G in GroupName]: {
    [K in InvokeKeys<IpcSchema[G]>]: (
      request: RequestOf<IpcSchema[G][K]>,
    ) => Promise<ResponseOf<IpcSchema[G][K]>> | ResponseOf<IpcSchema[G][K]>;
  };
};

/** How main sends events: `events.services.changed(view)`. */
export type IpcEvents = {
  [G in GroupName]: { [K in NotifyKeys<IpcSchema[G]>]: (value: EventOf<IpcSchema[G][K]>) => void };
};

export const channelName = (group: string, key: string): string => `${group}:${key}`;

export interface ChannelEntry {
  group: GroupName;
  key: string;
  name: string;
  channel: AnyInvoke | AnyNotify;
}

/** Every channel of the schema, flattened. */
export function channels(): ChannelEntry[] {
  return (Object.keys(ipcSchema) as GroupName[]).flatMap((group) =>
    Object.entries(ipcSchema[group]).map(([key, channel]) => ({
      group,
      key,
      name: channelName(group, key),
      channel: channel as AnyInvoke | AnyNotify,
    })),
  );
}

const listenerName = (key: string) => `on${key[0]!.toUpperCase()}${key.slice(1)}`;

/** How the bridge reaches main: `ipcRenderer` in the preload, a Playwright binding in the UI tests. */
export interface BridgeTransport {
  invoke(channel: string, payload: unknown): Promise<unknown>;
  subscribe(channel: string, listener: (value: unknown) => void): () => void;
}

/** Builds the object the preload exposes; each function forwards exactly one schema channel. */
export function createBridge(transport: BridgeTransport): PosternBridge {
  const bridge: Record<string, Record<string, unknown>> = {};
  for (const { group, key, name, channel } of channels()) {
    const api = (bridge[group] ??= {});
    if (channel.kind === 'invoke') api[key] = (payload?: unknown) => transport.invoke(name, payload);
    else api[listenerName(key)] = (listener: (value: unknown) => void) => transport.subscribe(name, listener);
  }
  return bridge as unknown as PosternBridge;
}

/** The event senders for main, each posting its schema channel through `send`. */
export function createEvents(send: (channel: string, value: unknown) => void): IpcEvents {
  const events: Record<string, Record<string, unknown>> = {};
  for (const { group, key, name, channel } of channels()) {
    if (channel.kind === 'notify') (events[group] ??= {})[key] = (value: unknown) => send(name, value);
  }
  return events as unknown as IpcEvents;
}

export class PosternError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PosternError';
  }
}

/** The renderer's client: same shape as the bridge, results unwrapped. */
export function createClient(bridge: PosternBridge): PosternClient {
  const client: Record<string, Record<string, unknown>> = {};
  for (const { group, key, channel } of channels()) {
    const api = (client[group] ??= {});
    const source = (bridge as unknown as Record<string, Record<string, (...args: unknown[]) => unknown>>)[
      group
    ]!;
    if (channel.kind === 'notify') {
      api[listenerName(key)] = source[listenerName(key)];
      continue;
    }
    api[key] = async (...args: unknown[]) => {
      const result = (await source[key]!(...args)) as IpcResult<unknown>;
      if (result.ok) return result.value;
      throw new PosternError(result.error.code, result.error.message);
    };
  }
  return client as unknown as PosternClient;
}
