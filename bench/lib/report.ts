/**
 * The bench's output: a plain table on stdout and `bench/results.json`. A partial run (`--only`) updates its
 * own figures in the file and keeps the others, each figure carrying the time it was measured.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { Figure } from './figure.js';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryMiB: number;
  node: string;
  platform: string;
  release: string;
  /** 1-minute load average when the run started: how busy the neighbours were */
  loadAverage: number;
  date: string;
}

export interface Results {
  machine: Machine;
  mode: 'full' | 'quick';
  durationSeconds: number;
  figures: Record<string, Figure>;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryMiB: Math.round(os.totalmem() / 1024 / 1024),
    node: process.version,
    platform: process.platform,
    release: os.release(),
    loadAverage: Number(os.loadavg()[0]!.toFixed(2)),
    date: new Date().toISOString(),
  };
}

const fmt = (n: number | null) => {
  if (n === null || Number.isNaN(n)) return '-';
  if (!Number.isFinite(n)) return 'inf';
  return Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(3);
};

export function table(figures: readonly Figure[]): string {
  const rows = [
    ['figure', 'value', 'baseline', 'ratio', 'target', 'met'],
    ...figures.map((f) => [
      f.label,
      `${fmt(f.value)} ${f.unit}`,
      f.baseline === null ? '-' : `${fmt(f.baseline)} ${f.unit}`,
      fmt(f.ratio),
      f.target ?? '(info)',
      f.met === null ? '' : f.met ? 'yes' : 'NO',
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join(' | ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.slice(1).map(line)].join(
    '\n',
  );
}

export function writeResults(path: string, results: Results): void {
  let figures = results.figures;
  if (existsSync(path)) {
    try {
      const previous = JSON.parse(readFileSync(path, 'utf8')) as Partial<Results>;
      figures = { ...(previous.figures ?? {}), ...results.figures };
    } catch {
      // an unreadable previous file is replaced
    }
  }
  writeFileSync(path, `${JSON.stringify({ ...results, figures }, null, 2)}\n`);
}
