/**
 * The sandboxed preload: exposes exactly the schema's API as `window.postern` and nothing else (no raw
 * ipcRenderer, no Node). Built as one CommonJS file, since a sandboxed preload can only require 'electron'.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { createBridge } from '../ipc/bridge.js';

contextBridge.exposeInMainWorld(
  'postern',
  createBridge({
    invoke: (channel, payload) => ipcRenderer.invoke(channel, payload),
    subscribe: (channel, listener) => {
      const forward = (_event: IpcRendererEvent, value: unknown) => listener(value);
      ipcRenderer.on(channel, forward);
      return () => void ipcRenderer.removeListener(channel, forward);
    },
  }),
);
