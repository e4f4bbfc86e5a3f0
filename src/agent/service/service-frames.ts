/**
 * The local socket's framing: one JSON value per line (UTF-8, `\n`-terminated), at most MAX_FRAME_BYTES a
 * line. Shared by the service and its clients. The cap answers a peer (allowed or not yet checked) that
 * sends an endless line to make the service buffer it: past the cap the connection gets one error and is
 * closed, since the stream cannot be resynchronised without reading the rest of the line.
 */
import type { Socket } from 'node:net';

/** 64 KiB: a status with hundreds of services and addresses fits many times over; requests are tiny. */
export const MAX_FRAME_BYTES = 64 * 1024;

export type FrameOutcome =
  { kind: 'frame'; value: unknown } | { kind: 'not-json'; message: string } | { kind: 'too-large' };

/** Reads frames from a socket; `onFrame` gets each line parsed, or why it could not be. */
export function readFrames(socket: Socket, onFrame: (outcome: FrameOutcome) => void): void {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overflowed = false;
  socket.on('data', (chunk: Buffer) => {
    if (overflowed) return;
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (pendingBytes + piece.length > MAX_FRAME_BYTES) return overflow();
      const line = Buffer.concat([...pending, piece]).toString('utf8');
      pending = [];
      pendingBytes = 0;
      if (line.trim() === '') continue;
      onFrame(parseLine(line));
      if (socket.destroyed) return;
    }
    const rest = chunk.subarray(start);
    if (pendingBytes + rest.length > MAX_FRAME_BYTES) return overflow();
    if (rest.length) {
      pending.push(rest);
      pendingBytes += rest.length;
    }
  });
  function overflow(): void {
    overflowed = true;
    pending = [];
    onFrame({ kind: 'too-large' });
  }
}

function parseLine(line: string): FrameOutcome {
  try {
    return { kind: 'frame', value: JSON.parse(line) as unknown };
  } catch (error) {
    return { kind: 'not-json', message: (error as Error).message };
  }
}

/** Writes one frame; a frame over the cap is a bug on this side, so it throws rather than sending it. */
export function writeFrame(socket: Socket, value: unknown): void {
  const line = `${JSON.stringify(value)}\n`;
  if (Buffer.byteLength(line) > MAX_FRAME_BYTES)
    throw new Error(`a frame of ${Buffer.byteLength(line)} bytes is over the ${MAX_FRAME_BYTES}-byte cap`);
  if (!socket.destroyed && socket.writable) socket.write(line);
}
