/**
 * /etc/resolv.conf as intercept mode reads and writes it (pure): the upstream servers of the original, and the
 * file Postern writes in its place (the agent's resolver first and only, the original's search and options
 * kept, and a comment saying who wrote it and how to put the original back).
 */

/** The first line of every file Postern writes: how a later start (or a person) tells it from the system's. */
export const POSTERN_MARKER = '# Written by Postern intercept mode';

/** The `nameserver` addresses, in order (glibc uses the first three; the resolver forwards to all of them). */
export function nameservers(text: string): string[] {
  return text
    .split('\n')
    .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
    .filter((address): address is string => address !== undefined);
}

export const writtenByPostern = (text: string) => text.startsWith(POSTERN_MARKER);

/** `search`, `domain` and `options` lines of the original, verbatim: name completion and timeouts stay as they were. */
function keptLines(original: string): string[] {
  return original.split('\n').filter((line) => /^\s*(search|domain|options)\s/.test(line));
}

export function posternResolvConf(
  original: string,
  resolverAddress: string,
  savedCopy: string,
  path: string,
): string {
  return [
    POSTERN_MARKER,
    `# (postern-agent run --intercept). Intercepted names are answered by the agent at ${resolverAddress};`,
    '# every other name is forwarded to the servers the original file listed.',
    `# The original is saved in ${savedCopy}; the agent puts it back when it stops, or on its next start`,
    `# after a crash. To put it back by hand: cp ${savedCopy} ${path}`,
    `nameserver ${resolverAddress}`,
    ...keptLines(original),
    '',
  ].join('\n');
}
