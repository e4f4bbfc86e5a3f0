/**
 * The local ports the agent chose, kept across restarts so a bookmark or a client configuration keeps
 * working: one small JSON file in the agent's folder, owner-only, replaced atomically.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export class PortMemory {
  private ports: Record<string, number>;

  constructor(private readonly file: string | undefined) {
    this.ports = {};
    if (!file) return;
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      for (const [key, value] of Object.entries(parsed))
        if (Number.isInteger(value) && (value as number) > 0 && (value as number) < 65536)
          this.ports[key] = value as number;
    } catch {
      // none yet, or unreadable: start afresh
    }
  }

  get(key: string): number | undefined {
    return this.ports[key];
  }

  set(key: string, port: number): void {
    if (this.ports[key] === port) return;
    this.ports[key] = port;
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, `${JSON.stringify(this.ports, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
  }
}
