/**
 * Client-side routing under /console/ with the History API: the controller answers every page path with the
 * same index (console-routes.ts). Query strings carry only ids and choices, never anything secret.
 */
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

export const BASE = '/console';
const CHANGED = 'postern-console:navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(CHANGED, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(CHANGED, onChange);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

export interface Route {
  /** below the base, always starting with `/`: `/identities/abc` */
  path: string;
  /** the path's segments: `['identities', 'abc']` */
  segments: string[];
  query: URLSearchParams;
}

export function useRoute(): Route {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, window.location.origin);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || '/' : '/';
  return { path, segments: path.split('/').filter(Boolean).map(decodeURIComponent), query: url.searchParams };
}

export function href(to: string): string {
  return `${BASE}${to.startsWith('/') ? to : `/${to}`}`;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', href(to));
  else window.history.pushState(null, '', href(to));
  window.dispatchEvent(new Event(CHANGED));
  window.scrollTo(0, 0);
}

/** A link within the console: an ordinary anchor (open in a new tab works), followed without a reload. */
export function Link({ to, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    props.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...props} href={href(to)} onClick={onClick} />;
}
