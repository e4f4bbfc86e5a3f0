/**
 * Electron's powerMonitor as the agent's PowerEvents port. Electron raises lock/unlock only on Windows and
 * macOS; on Linux the agent's own logind/screensaver D-Bus source adds them (its suspend/resume are
 * dropped here, since Electron already reports those from logind and the agent must not see a wake twice).
 */
import { powerMonitor } from 'electron';
import { createPowerEvents } from '../../src/agent/power/create-power-events.js';
import {
  POWER_EVENTS,
  PowerEventEmitter,
  type PowerEventSource,
} from '../../src/agent/power/power-events.js';
import type { AgentLogger } from '../../src/common/logger.js';

export interface ElectronPowerEventsOptions {
  platform?: NodeJS.Platform;
  logger?: AgentLogger;
  /** The Linux lock/unlock source; injectable for tests. */
  linuxSource?: () => PowerEventSource;
}

export function electronPowerEvents(options: ElectronPowerEventsOptions = {}): PowerEventSource {
  const platform = options.platform ?? process.platform;
  const emitter = new PowerEventEmitter();
  const detach = POWER_EVENTS.map((event) => {
    const forward = () => emitter.emit(event);
    powerMonitor.on(event as 'resume', forward);
    return (): void => void powerMonitor.removeListener(event as 'resume', forward);
  });
  let linux: PowerEventSource | undefined;
  if (platform === 'linux') {
    linux = (options.linuxSource ?? (() => createPowerEvents({ platform, logger: options.logger })))();
    const off = linux.subscribe((event) => {
      if (event === 'lock-screen' || event === 'unlock-screen') emitter.emit(event);
    });
    detach.push(() => void off());
  }
  return {
    subscribe: (listener) => emitter.subscribe(listener),
    close() {
      detach.forEach((off) => off());
      linux?.close();
      emitter.close();
    },
  };
}
