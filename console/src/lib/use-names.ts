/**
 * The names of a page's referenced entities (an exception names its identity and check by id): one request
 * per collection for the page, `id in [...]`, rather than one per row.
 */
import { listPage, quoted } from '../api/list-query.js';
import type { Named } from '../api/types.js';
import { useLoad } from './use-load.js';

export function useNames(
  collection: string,
  ids: readonly (string | null | undefined)[],
): Map<string, string> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))].sort();
  const key = wanted.join(' ');
  const loaded = useLoad(async () => {
    if (wanted.length === 0) return new Map<string, string>();
    const page = await listPage<Named>(collection, {
      search: '',
      where: `id in [${wanted.map(quoted).join(', ')}]`,
      sortBy: 'name',
      direction: 'asc',
      offset: 0,
      limit: wanted.length,
    });
    return new Map(page.items.map((e) => [e.id, e.name]));
  }, [collection, key]);
  return loaded.value ?? new Map();
}
