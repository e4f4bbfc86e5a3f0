/**
 * `{ ...base, ...fields }` without a hidden class per object. On Node 20's V8 (11.3) an object literal that
 * begins with a spread and goes on to name properties gets a hidden class (map) of its own every time it runs;
 * maps live in the old generation, so a controller decoding thousands of entities and building answers filled
 * its heap with them (docs/PERFORMANCE.md, "Memory"). Copying into a fresh object with Object.assign shares
 * one hidden class per shape and is several times faster.
 *
 * The same own properties in the same order as the spread. A `base` with an own `__proto__` key (JSON can
 * carry one) is spread instead: Object.assign would set the new object's prototype where a spread defines
 * a property.
 */
export function withFields<T extends object, U extends object>(base: T, fields: U): Omit<T, keyof U> & U {
  if (Object.hasOwn(base, '__proto__') || Object.hasOwn(fields, '__proto__')) return { ...base, ...fields };
  return Object.assign({}, base, fields);
}
