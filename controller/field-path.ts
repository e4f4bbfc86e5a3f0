/** Turns a JSON pointer (`/operatingSystems/0/versions/1`) into the API's field notation (`operatingSystems[0].versions[1]`). */
export function pointerToField(pointer: string, missingProperty?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (missingProperty) parts.push(missingProperty);
  let field = '';
  for (const part of parts) {
    if (/^\d+$/.test(part)) field += `[${part}]`;
    else field += field ? `.${part}` : part;
  }
  return field;
}

/** Appends a property or index to a field path: `at('processes', 1)` → `processes[1]`. */
export function at(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}
