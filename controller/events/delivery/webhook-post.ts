/**
 * One webhook attempt: an HTTPS POST (plain HTTP only to a loopback address, checked again here, not only when
 * the subscription was written) of the signed body, bounded in time and in what is read back. A 2xx answer is
 * delivered; anything else is an error the queue records and retries.
 */
import http from 'node:http';
import https from 'node:https';
import { isLoopbackHost } from '../../loopback.js';
import { SIGNATURE_HEADER, sign } from './signature.js';

/** The whole exchange (connect, send, answer) ends within this; a stalled receiver is a failed attempt. */
export const POST_TIMEOUT_MS = 10_000;
/** What is read of a receiver's answer (kept as the last error when it failed); the rest is discarded. */
export const RESPONSE_READ_LIMIT = 4_096;

/** Why a webhook URL is refused, or undefined when it is fine. */
export function webhookUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.username || parsed.password) return 'must not carry credentials (the signature authenticates)';
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:')
    return isLoopbackHost(parsed.hostname) ? undefined : 'plain http is allowed only to a loopback address';
  return 'must be https';
}

export async function postWebhook(url: string, secret: string, body: string, ca?: string): Promise<void> {
  const problem = webhookUrlProblem(url);
  if (problem) throw new Error(`url ${problem}`);
  const signature = sign(secret, body, Math.floor(Date.now() / 1000));
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  await new Promise<void>((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        timeout: POST_TIMEOUT_MS,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'Postern-Webhook',
          [SIGNATURE_HEADER]: signature,
        },
        ...(ca ? { ca } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          if (read < RESPONSE_READ_LIMIT) chunks.push(chunk.subarray(0, RESPONSE_READ_LIMIT - read));
          read += chunk.length;
        });
        response.on('end', () => {
          clearTimeout(deadline);
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) return resolve();
          const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim().slice(0, 200);
          reject(new Error(`HTTP ${status}${text ? `: ${text}` : ''}`));
        });
        response.on('error', reject);
      },
    );
    // The socket timeout is idle time; this bounds the whole exchange (a receiver dribbling bytes).
    const deadline = setTimeout(
      () => request.destroy(new Error(`no answer within ${POST_TIMEOUT_MS} ms`)),
      POST_TIMEOUT_MS,
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${POST_TIMEOUT_MS} ms`)));
    request.on('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    request.end(body);
  });
}
