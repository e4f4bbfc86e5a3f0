/**
 * A view that needs more than the entity's own row (names behind `@id` roles, an identity's authenticators,
 * ...) is loaded for a whole page at once, then rendered synchronously. `preparedWire` makes the pair a
 * `CrudResource` takes: `prepare(page)` reads the store once for the page, `toWire(entity)` renders one of
 * its entities. What was read is kept per entity object (a request's own objects), so concurrent requests
 * do not share it.
 */
export type WireOf<T> = (entity: T) => Record<string, unknown>;

export function preparedWire<T extends object>(
  what: string,
  load: (entities: readonly T[]) => Promise<WireOf<T>>,
): { prepare(entities: T[]): Promise<void>; toWire: WireOf<T> } {
  const prepared = new WeakMap<T, WireOf<T>>();
  return {
    async prepare(entities) {
      if (entities.length === 0) return;
      const wire = await load(entities);
      for (const entity of entities) prepared.set(entity, wire);
    },
    toWire(entity) {
      const wire = prepared.get(entity);
      if (!wire) throw new Error(`${what}: toWire before prepare (the page's related rows are not loaded)`);
      return wire(entity);
    },
  };
}
