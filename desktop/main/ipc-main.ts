/**
 * Binds the IPC schema to Electron: every invoke channel to `ipcMain.handle` through the dispatcher (sender
 * check, payload guard), and the schema's events to the app's own windows only.
 */
import { BrowserWindow, ipcMain } from 'electron';
import { channels, createEvents, type IpcEvents, type IpcHandlers } from '../ipc/bridge.js';
import { createDispatch, type DispatchOptions } from './ipc-dispatch.js';
import { isAppUrl } from './security.js';

/** Registers a handler per invoke channel; returns the function removing them all. */
export function bindIpcHandlers(handlers: IpcHandlers, options: DispatchOptions): () => void {
  const dispatch = createDispatch(handlers, options);
  const names = channels()
    .filter((c) => c.channel.kind === 'invoke')
    .map((c) => c.name);
  for (const name of names)
    ipcMain.handle(name, (event, payload: unknown) => dispatch(name, event.senderFrame, payload));
  return () => names.forEach((name) => ipcMain.removeHandler(name));
}

/** Events go to every window showing one of the app's pages, never to anything else. */
export function createWindowEvents(devServerUrl?: string): IpcEvents {
  return createEvents((channel, value) => {
    for (const window of BrowserWindow.getAllWindows()) {
      const contents = window.webContents;
      if (!contents.isDestroyed() && isAppUrl(contents.getURL(), devServerUrl)) contents.send(channel, value);
    }
  });
}
