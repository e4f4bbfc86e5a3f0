/**
 * The renderer's only way out: the preload's `window.postern` bridge, with results unwrapped (a failed call
 * throws PosternError carrying the user-facing message). Typed from the one IPC schema.
 */
import { createClient, PosternError, type PosternBridge } from '../../../ipc/bridge.js';

declare global {
  interface Window {
    postern: PosternBridge;
  }
}

export const postern = createClient(window.postern);

/** The message to show for a failed call. */
export function messageOf(error: unknown): string {
  if (error instanceof PosternError || error instanceof Error) return error.message;
  return String(error);
}
