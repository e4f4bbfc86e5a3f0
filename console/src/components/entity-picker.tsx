/**
 * Picking one entity of a large collection: type part of its name, choose among the first matches, which the
 * API finds (`name icontains "…" sort by name asc limit 8`).
 */
import { useEffect, useId, useState } from 'react';
import { listPage } from '../api/list-query.js';
import type { Named } from '../api/types.js';

const MATCHES = 8;

export function EntityPicker<T extends Named>({
  label,
  collection,
  selected,
  onSelect,
}: {
  label: string;
  collection: string;
  selected: T | undefined;
  onSelect: (entity: T) => void;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const [matches, setMatches] = useState<T[]>([]);
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      listPage<T>(collection, {
        search: text,
        sortBy: 'name',
        direction: 'asc',
        offset: 0,
        limit: MATCHES,
      }).then(
        (page) => current && setMatches(page.items),
        () => current && setMatches([]),
      );
    }, 200);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [collection, text]);
  return (
    <div className="field picker">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="search"
        value={text}
        placeholder="Type part of the name"
        onChange={(event) => setText(event.target.value)}
        aria-describedby={`${id}-chosen`}
      />
      <p id={`${id}-chosen`} className="hint">
        {selected ? (
          <>
            Chosen: <strong>{selected.name}</strong>
          </>
        ) : (
          'None chosen yet.'
        )}
      </p>
      <ul className="matches" aria-label={`${label}: matches`}>
        {matches.map((m) => (
          <li key={m.id}>
            <button
              type="button"
              className={m.id === selected?.id ? 'small' : 'secondary small'}
              aria-pressed={m.id === selected?.id}
              onClick={() => onSelect(m)}
            >
              {m.name}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
