/**
 * The OS's own source of power and session events for a headless agent. Linux has the D-Bus source; on
 * Windows and macOS these events come from Electron's powerMonitor in the desktop app, so the headless agent
 * gets an empty source there (its `wake`/`unlock` console commands still work).
 */
import type { AgentLogger } from '../../common/logger.js';
import { LinuxSessionEvents } from './linux-session-events.js';
import { PowerEventEmitter, type PowerEventSource } from './power-events.js';

export interface CreatePowerEventsOptions {
  platform?: NodeJS.Platform;
  logger?: AgentLogger;
}

export function createPowerEvents(options: CreatePowerEventsOptions = {}): PowerEventSource {
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') return new LinuxSessionEvents({ logger: options.logger });
  return new PowerEventEmitter();
}
