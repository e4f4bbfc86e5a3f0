/**
 * Entry of the bundled controller's utility process (Electron's utilityProcess: a Node child that shares
 * nothing with the UI and dies with the app). It starts the controller on loopback, on the port it used
 * last time when that port is free, and tells main where it listens.
 */
import { startController, type RunningController } from '../controller/app.js';
import { defaultConfig } from '../controller/config.js';

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

async function start(request: StartRequest): Promise<RunningController> {
  const config = { ...defaultConfig(request.dataDir), host: '127.0.0.1', logLevel: 'warn' };
  // As with `npm run controller`: the first start takes the admin password from the environment, or makes one.
  const options = { adminPassword: process.env.POSTERN_ADMIN_PASSWORD || undefined };
  try {
    return await startController({ ...config, port: request.port }, options);
  } catch (error) {
    // Someone else took the remembered port: any free one will do (main remembers the new one).
    if ((error as { code?: string }).code !== 'EADDRINUSE' || request.port === 0) throw error;
    return startController({ ...config, port: 0 }, options);
  }
}

const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
if (!parentPort) throw new Error('controller-process must run in an Electron utility process');

parentPort.once('message', ({ data }) => {
  start(data).then(
    (controller) => {
      const port = Number(new URL(controller.url).port);
      parentPort.postMessage({ type: 'listening', url: controller.url, port });
      const stop = () => void controller.close().finally(() => process.exit(0));
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
