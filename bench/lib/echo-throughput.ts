/**
 * Echo throughput of one connection: write `bytes` while reading them back; MiB/s of payload. The measure
 * every throughput bench uses (tunnel-throughput, intercept-throughput), so their figures compare.
 */
import type { Duplex } from 'node:stream';

export async function echoMiBps(open: () => Promise<Duplex>, bytes: number): Promise<number> {
  const stream = await open();
  const chunk = Buffer.alloc(256 * 1024, 7);
  const started = performance.now();
  const done = new Promise<void>((resolve) => {
    let received = 0;
    stream.on('data', (c: Buffer) => {
      received += c.length;
      if (received >= bytes) resolve();
    });
  });
  for (let sent = 0; sent < bytes; sent += chunk.length)
    if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
  await done;
  const seconds = (performance.now() - started) / 1000;
  stream.destroy();
  return bytes / (1024 * 1024) / seconds;
}
