/**
 * The agent's idle baseline: a Node process loaded the same way (through tsx) that does nothing, so the
 * agent's idle CPU and memory can be read next to what Node itself costs on this machine.
 */
setInterval(() => undefined, 1 << 30);
console.log('idle node ready');
process.on('SIGTERM', () => process.exit(0));
