/**
 * What desktop/main/preload.ts gets as 'electron' when the UI tests bundle it for a plain browser page: the real
 * preload code runs unchanged, its ipcRenderer calls go to the test process through a Playwright binding
 * (`__posternInvoke`, which feeds main's own dispatcher), and the test process pushes main's events in
 * through `__posternEmit`.
 */
type Listener = (event: unknown, value: unknown) => void;

declare global {
  interface Window {
    __posternInvoke(channel: string, payload: unknown): Promise<unknown>;
    __posternEmit(channel: string, value: unknown): void;
  }
}

const listeners = new Map<string, Set<Listener>>();

window.__posternEmit = (channel, value) => {
  for (const listener of listeners.get(channel) ?? []) listener({}, value);
};

export const ipcRenderer = {
  invoke: (channel: string, payload: unknown) => window.__posternInvoke(channel, payload),
  on(channel: string, listener: Listener) {
    if (!listeners.has(channel)) listeners.set(channel, new Set());
    listeners.get(channel)!.add(listener);
    return ipcRenderer;
  },
  removeListener(channel: string, listener: Listener) {
    listeners.get(channel)?.delete(listener);
    return ipcRenderer;
  },
};

/** No isolated world in a plain page: the bridge lands on window, where the renderer reads it. */
export const contextBridge = {
  exposeInMainWorld(key: string, api: unknown) {
    Object.defineProperty(window, key, { value: Object.freeze(api), writable: false, configurable: false });
  },
};

export type IpcRendererEvent = unknown;
