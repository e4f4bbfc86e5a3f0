/**
 * This machine's real posture collector, held back until the test releases it: the only way to look at
 * the moment between signing in and the first report ("checking…") without racing the agent.
 */
import { createCollector } from '../../src/agent/collectors/create-collector.js';
import type { PostureCollector, ProcessQuery } from '../../src/agent/collectors/posture-collector.js';

export class HeldCollector implements PostureCollector {
  private readonly real = createCollector();
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));

  release(): void {
    this.open();
  }

  private async after<T>(collect: () => Promise<T>): Promise<T> {
    await this.gate;
    return collect();
  }

  collectOs(id: string) {
    return this.after(() => this.real.collectOs(id));
  }
  collectMac(id: string) {
    return this.after(() => this.real.collectMac(id));
  }
  collectDomain(id: string) {
    return this.after(() => this.real.collectDomain(id));
  }
  collectProcesses(queries: readonly ProcessQuery[]) {
    return this.after(() => this.real.collectProcesses(queries));
  }
}
