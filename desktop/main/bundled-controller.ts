/**
 * Starts the bundled controller in an Electron utility process, on a loopback port remembered across
 * launches (the agent's keychain entries are tied to the controller URL, so the URL must not change with
 * every start). Its data folder is the demo's, or the user's own controller folder when Settings switch
 * it on.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { utilityProcess, type UtilityProcess } from 'electron';
import type { ControllerProcessMessage, StartRequest } from './controller-process.js';

export interface BundledController {
  url: string;
  /** The admin's password file the controller writes on its first start (for seeding demo data). */
  adminPasswordFile: string;
  stop(): Promise<void>;
}

export interface BundledControllerOptions {
  /** The built controller-process.js. */
  entry: string;
  dataDir: string;
  timeoutMs?: number;
}

const PORT_FILE = 'bundled-port';

async function rememberedPort(dataDir: string): Promise<number> {
  const port = Number((await readFile(join(dataDir, PORT_FILE), 'utf8').catch(() => '0')).trim());
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : 0;
}

function waitForListening(child: UtilityProcess, timeoutMs: number): Promise<{ url: string; port: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the bundled controller did not start within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.on('message', (message: ControllerProcessMessage) => {
      clearTimeout(timer);
      if (message.type === 'listening') resolve({ url: message.url, port: message.port });
      else reject(new Error(`the bundled controller failed to start: ${message.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bundled controller exited with code ${code} before listening`));
    });
  });
}

export async function startBundledController(options: BundledControllerOptions): Promise<BundledController> {
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const child = utilityProcess.fork(options.entry, [], {
    serviceName: 'Postern controller',
    stdio: 'inherit',
  });
  const request: StartRequest = { dataDir: options.dataDir, port: await rememberedPort(options.dataDir) };
  child.postMessage(request);
  const { url, port } = await waitForListening(child, options.timeoutMs ?? 30_000);
  await writeFile(join(options.dataDir, PORT_FILE), `${port}\n`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    adminPasswordFile: join(options.dataDir, 'admin-password'),
    async stop() {
      child.kill();
      await exited;
    },
  };
}
