import { selfLinks } from './envelope.js';

/** OpenZiti's `entityRef`: enough to name and link another entity. */
export const ref = (collection: string, id: string, name: string) => ({
  id,
  name,
  entity: collection,
  _links: selfLinks(collection, id),
});
