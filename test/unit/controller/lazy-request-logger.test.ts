/** Request loggers made on first use: the request id bound in, the level honoured, secrets still redacted. */
import { PassThrough } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../controller/logger.js';
import { lazyRequestLogger } from '../../../controller/http/lazy-request-logger.js';

async function serverLogging(level: string) {
  const lines: Record<string, unknown>[] = [];
  const out = new PassThrough();
  out.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  });
  const app = Fastify({
    loggerInstance: createLogger(level, out),
    childLoggerFactory: lazyRequestLogger,
    disableRequestLogging: true,
    genReqId: () => 'req-1',
  });
  app.get('/', async (request) => {
    request.log.debug('a debug line');
    request.log.info({ session: { token: 'secret-token' } }, 'an info line');
    request.log.warn('a warning');
    expect(request.log.level).toBe(level);
    return { ok: true };
  });
  await app.inject({ method: 'GET', url: '/' });
  await app.close();
  await new Promise((resolve) => setImmediate(resolve));
  return lines;
}

describe('lazyRequestLogger', () => {
  it('logs what the level lets through, with the request id and secrets redacted', async () => {
    const lines = await serverLogging('info');
    expect(lines.map((l) => l.msg)).toEqual(['an info line', 'a warning']);
    expect(lines.every((l) => l.reqId === 'req-1')).toBe(true);
    expect(lines[0]!.session).toEqual({ token: '[redacted]' });
  });

  it('logs nothing below the level', async () => {
    const lines = await serverLogging('warn');
    expect(lines.map((l) => l.msg)).toEqual(['a warning']);
    expect(lines[0]!.reqId).toBe('req-1');
  });
});
