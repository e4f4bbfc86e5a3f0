/**
 * One spelling per DNS name: lower case (DNS compares names without regard to ASCII case) and no trailing dot
 * (`wiki.corp.` is the fully qualified spelling of `wiki.corp`), so a name is allocated, matched and looked up
 * under the same key however a client wrote it.
 */
export function normalizeName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** A host name of 1 to 253 characters whose labels are 1 to 63 letters, digits, `-` or `_` (already normalized). */
export function isHostName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => LABEL.test(label));
}
