/**
 * One IPC request from arrival to answer, without Electron: the sender check, the payload guard, the
 * handler, and the error turned into data. `ipc-main.ts` feeds it from `ipcMain`; the UI tests feed it from
 * a Playwright binding, so both run exactly the same checks.
 */
import { channels, type IpcHandlers } from '../ipc/bridge.js';
import { IPC_ERRORS, toIpcError } from '../ipc/ipc-error.js';
import type { IpcResult } from '../ipc/views.js';
import type { SenderFrame } from './security.js';

export type Dispatch = (
  channel: string,
  sender: SenderFrame | null | undefined,
  payload: unknown,
) => Promise<IpcResult<unknown>>;

export interface DispatchOptions {
  isTrusted: (sender: SenderFrame | null | undefined) => boolean;
  /** Told about refused requests (they point at a bug or an attack, never at the user). */
  onRefused?: (channel: string, reason: string) => void;
}

const fail = (code: string, message: string): IpcResult<never> => ({ ok: false, error: { code, message } });

export function createDispatch(handlers: IpcHandlers, options: DispatchOptions): Dispatch {
  const invokes = new Map(
    channels()
      .filter((c) => c.channel.kind === 'invoke')
      .map((c) => [c.name, c]),
  );
  return async (name, sender, payload) => {
    const entry = invokes.get(name);
    if (!entry || entry.channel.kind !== 'invoke')
      return fail(IPC_ERRORS.unknownChannel, `no channel ${name}`);
    if (!options.isTrusted(sender)) {
      options.onRefused?.(name, `untrusted sender ${sender?.url ?? '(none)'}`);
      return fail(IPC_ERRORS.forbidden, 'This window may not use Postern.');
    }
    if (!entry.channel.validate(payload)) {
      options.onRefused?.(name, 'invalid payload');
      return fail(IPC_ERRORS.invalidRequest, `invalid request for ${name}`);
    }
    const group = handlers[entry.group] as Record<string, (request: unknown) => unknown>;
    try {
      return { ok: true, value: await group[entry.key]!(payload ?? undefined) };
    } catch (error) {
      return { ok: false, error: toIpcError(error) };
    }
  };
}
