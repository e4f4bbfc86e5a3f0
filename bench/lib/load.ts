/**
 * Load from this (the bench) process against a server in another process, with autocannon: fixed
 * connections, fixed duration, keep-alive, no pipelining (an agent sends one request at a time).
 */
import autocannon, { type Result } from 'autocannon';

export interface LoadResult {
  /** completed requests per second over the run (2xx only count as throughput) */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** non-2xx answers and connection errors: a correct run has none */
  failures: number;
  statusCounts: Record<string, number>;
  /** CPU the bench process (the load generator) used meanwhile, in % of one core */
  generatorCpuPercent: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** per-connection headers (connection i gets perConnection[i % length]): one agent per connection */
  perConnection?: Record<string, string>[];
  connections: number;
  durationSeconds: number;
}

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const baseHeaders = { 'content-type': 'application/json', ...options.headers };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        body: options.body,
        headers: baseHeaders,
        connections: options.connections,
        duration: options.durationSeconds,
        timeout: 30,
        setupClient: options.perConnection
          ? (client) =>
              client.setHeaders({
                ...baseHeaders,
                ...options.perConnection![next++ % options.perConnection!.length],
              })
          : undefined,
      },
      (err, result) => {
        if (err) return reject(err);
        const cpu = process.cpuUsage(cpuBefore);
        const elapsedMs = performance.now() - started;
        resolve({
          ...summarise(result),
          generatorCpuPercent: ((cpu.user + cpu.system) / 1000 / elapsedMs) * 100,
        });
      },
    );
  });
}

function summarise(result: Result): Omit<LoadResult, 'generatorCpuPercent'> {
  const statusCounts: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {}))
    statusCounts[code] = Number(count);
  const ok = result['2xx'];
  return {
    rps: ok / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors,
    statusCounts,
  };
}
