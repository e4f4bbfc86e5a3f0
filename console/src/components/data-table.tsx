/**
 * A list page's table: column headers that sort on the server (the API's `sort by`), a search box that filters
 * on the server (`name icontains`), and a pager. Rows come from `useList`.
 */
import type { ReactNode } from 'react';
import type { ListState } from '../lib/use-list.js';
import { ErrorNote } from './status.js';

export interface Column<T> {
  label: string;
  /** the API field a click on the header sorts by; none: not sortable */
  sortBy?: string;
  render: (row: T) => ReactNode;
}

export function DataTable<T extends { id: string }>({
  list,
  columns,
  caption,
  searchLabel = 'Search by name',
}: {
  list: ListState<T>;
  columns: Column<T>[];
  caption: string;
  searchLabel?: string;
}) {
  const rows = list.value?.items ?? [];
  const total = list.value?.totalCount ?? 0;
  return (
    <div className="list">
      <div className="list-tools">
        <label className="search">
          <span className="visually-hidden">{searchLabel}</span>
          <input
            type="search"
            placeholder={searchLabel}
            aria-label={searchLabel}
            value={list.search}
            onChange={(event) => list.setSearch(event.target.value)}
          />
        </label>
        <Pager list={list} total={total} />
      </div>
      <ErrorNote error={list.error} />
      <table aria-busy={list.loading}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th
                key={column.label}
                scope="col"
                aria-sort={
                  column.sortBy && column.sortBy === list.sortBy
                    ? list.direction === 'asc'
                      ? 'ascending'
                      : 'descending'
                    : undefined
                }
              >
                {column.sortBy ? (
                  <button type="button" className="sort" onClick={() => list.sort(column.sortBy!)}>
                    {column.label}
                    <span aria-hidden="true">
                      {column.sortBy === list.sortBy ? (list.direction === 'asc' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                ) : (
                  column.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              {columns.map((column) => (
                <td key={column.label}>{column.render(row)}</td>
              ))}
            </tr>
          ))}
          {!list.loading && rows.length === 0 && (
            <tr>
              <td colSpan={columns.length} className="hint">
                {list.search ? `Nothing named like “${list.search}”.` : 'None yet.'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

/** Previous and Next over any server-side page (a list's, or a page without search and sort). */
export function Pager({
  list,
  total,
}: {
  list: Pick<ListState<unknown>, 'offset' | 'limit' | 'setOffset'>;
  total: number;
}) {
  const first = total === 0 ? 0 : list.offset + 1;
  const last = Math.min(list.offset + list.limit, total);
  return (
    <nav className="pager" aria-label="Pages">
      <span className="hint" aria-live="polite">
        {first}–{last} of {total.toLocaleString()}
      </span>
      <button
        type="button"
        className="secondary small"
        disabled={list.offset === 0}
        onClick={() => list.setOffset(Math.max(0, list.offset - list.limit))}
      >
        Previous
      </button>
      <button
        type="button"
        className="secondary small"
        disabled={last >= total}
        onClick={() => list.setOffset(list.offset + list.limit)}
      >
        Next
      </button>
    </nav>
  );
}
