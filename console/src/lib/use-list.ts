/**
 * The state of one server-side list: search text, sort column and direction, page; each change asks the API
 * for that one page. Typing waits a moment before asking, so a word is one request, not one per letter.
 */
import { useEffect, useState } from 'react';
import { listPage, type ListRequest, type Page, type SortDirection } from '../api/list-query.js';
import { useLoad, type Loaded } from './use-load.js';

export const PAGE_SIZE = 25;
const TYPING_PAUSE_MS = 250;

export interface ListState<T> extends Loaded<Page<T>> {
  search: string;
  setSearch: (text: string) => void;
  sortBy: string;
  direction: SortDirection;
  /** the column clicked: sorts by it, or flips the direction when it already does */
  sort: (field: string) => void;
  offset: number;
  setOffset: (offset: number) => void;
  limit: number;
}

export function useList<T>(
  collection: string,
  options: { sortBy?: string; direction?: SortDirection; where?: string } = {},
): ListState<T> {
  const [search, setSearchText] = useState('');
  const [appliedSearch, setAppliedSearch] = useState('');
  const [sortBy, setSortBy] = useState(options.sortBy ?? 'name');
  const [direction, setDirection] = useState<SortDirection>(options.direction ?? 'asc');
  const [offset, setOffset] = useState(0);

  useEffect(() => {
    const timer = setTimeout(() => setAppliedSearch(search), TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [search]);

  const request: ListRequest = {
    search: appliedSearch,
    sortBy,
    direction,
    offset,
    limit: PAGE_SIZE,
    ...(options.where ? { where: options.where } : {}),
  };
  const loaded = useLoad(
    () => listPage<T>(collection, request),
    [collection, appliedSearch, sortBy, direction, offset, options.where],
  );

  return {
    ...loaded,
    search,
    setSearch: (text) => {
      setSearchText(text);
      setOffset(0);
    },
    sortBy,
    direction,
    sort: (field) => {
      if (field === sortBy) setDirection(direction === 'asc' ? 'desc' : 'asc');
      else {
        setSortBy(field);
        setDirection('asc');
      }
      setOffset(0);
    },
    offset,
    setOffset,
    limit: PAGE_SIZE,
  };
}
