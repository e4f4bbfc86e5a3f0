/**
 * Entry of the bundled controller's utility process (Electron's utilityProcess: a Node child that shares
 * nothing with the UI and dies with the app). It starts the controller on loopback, on the port it used
 * last time when that port is free, and tells main where it listens.
 */
import { defaultConfig } from '../../controller/config.js';
import { startBundle, type RunningBundle } from '../../server/bundle.js';
import { boundHeapGrowth } from '../../server/heap-growth.js';

export interface StartRequest {
  dataDir: string;
  /** 0 for any free port. */
  port: number;
}

export type ControllerProcessMessage =
  { type: 'listening'; url: string; port: number } | { type: 'failed'; message: string };

interface ParentPort {
  once(event: 'message', listener: (message: { data: StartRequest }) => void): void;
  postMessage(message: ControllerProcessMessage): void;
}

/** The controller and its embedded edge router, as `npm run controller` runs them. */
async function start(request: StartRequest): Promise<RunningBundle> {
  boundHeapGrowth();
  const config = { ...defaultConfig(request.dataDir), host: '127.0.0.1', logLevel: 'warn' };
  // As with `npm run controller`: the first start takes the admin password from the environment, or makes one.
  const options = { adminPassword: process.env.POSTERN_ADMIN_PASSWORD || undefined };
  try {
    return await startBundle({ ...config, port: request.port }, options);
  } catch (error) {
    // Someone else took the remembered port: any free one will do (main remembers the new one).
    if ((error as { code?: string }).code !== 'EADDRINUSE' || request.port === 0) throw error;
    return startBundle({ ...config, port: 0 }, options);
  }
}

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
if (!parentPort) throw new Error('controller-process must run in an Electron utility process');

parentPort.once('message', ({ data }) => {
  start(data).then(
    (bundle) => {
      const { url } = bundle.controller;
      parentPort.postMessage({ type: 'listening', url, port: Number(new URL(url).port) });
      const stop = () => void bundle.close().finally(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (error: unknown) => {
      parentPort.postMessage({
        type: 'failed',
        message: error instanceof Error ? error.message : String(error),
      });
      process.exit(1);
    },
  );
});
