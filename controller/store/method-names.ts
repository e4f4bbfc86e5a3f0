/**
 * The methods an object answers to: its own function properties (a face built as a plain object, sql/faces.ts)
 * and its class's and their ancestors', without Object's own.
 */
export function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let proto: object | null = target; proto && proto !== Object.prototype;) {
    for (const name of Object.getOwnPropertyNames(proto))
      if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function')
        names.add(name);
    proto = Object.getPrototypeOf(proto);
  }
  return [...names];
}
