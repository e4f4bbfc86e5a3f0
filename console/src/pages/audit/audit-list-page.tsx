/**
 * The audit trail: every administrative change, sign-in, refusal and access transition, newest first, filtered
 * by identity, service, type, time range and reference (what a user quotes: `7K2Q-PX`). The filters live in
 * the address, so a search can be linked and reloaded; each event opens on its own page.
 */
import { useState, type FormEvent } from 'react';
import { auditFilterOf, auditPage, type AuditFilters } from '../../api/audit.js';
import { Pager } from '../../components/data-table.js';
import { ErrorNote, Loading, When } from '../../components/status.js';
import { instantOf, localInputOf } from '../../lib/local-time.js';
import { Link, navigate } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';
import { PAGE_SIZE } from '../../lib/use-list.js';
import { useNames } from '../../lib/use-names.js';
import { EntityLink, EventSentence } from './audit-views.js';
import { AUDIT_EVENT_FAMILIES, AUDIT_EVENT_TYPES } from '../../../../src/api/audit-event-types.js';

const FILTER_KEYS = ['identity', 'service', 'type', 'from', 'until', 'reference'] as const;

/** Suggestions for the type field; any type (or prefix ending in `.*`) may be typed. */
const TYPE_SUGGESTIONS = [...AUDIT_EVENT_FAMILIES, ...AUDIT_EVENT_TYPES].sort();

export function filtersOf(query: URLSearchParams): AuditFilters {
  return Object.fromEntries(FILTER_KEYS.flatMap((k) => (query.get(k) ? [[k, query.get(k)!]] : [])));
}

export function AuditListPage({ query }: { query: URLSearchParams }) {
  const filters = filtersOf(query);
  const offset = Number(query.get('offset')) || 0;
  const key = JSON.stringify(filters);
  const page = useLoad(
    async () => auditPage(await auditFilterOf(filters), 'desc', offset, PAGE_SIZE),
    [key, offset],
  );
  const rows = page.value?.items ?? [];
  const identityNames = useNames(
    'identities',
    rows.map((e) => e.identityId),
  );
  const serviceNames = useNames(
    'services',
    rows.map((e) => e.serviceId),
  );
  const go = (next: AuditFilters, nextOffset = 0) => {
    const params = new URLSearchParams();
    for (const k of FILTER_KEYS) if (next[k]) params.set(k, next[k]!);
    if (nextOffset) params.set('offset', String(nextOffset));
    navigate(`/audit${params.size ? `?${params}` : ''}`, { replace: true });
  };
  const filtered = FILTER_KEYS.some((k) => filters[k]);
  return (
    <>
      <h1>Audit trail</h1>
      <p className="hint">
        Every administrative change, sign-in, refused sign-in and change of access, newest first. A user who
        quotes a reference (such as 7K2Q-PX) is found by it.
      </p>
      <AuditFilterForm key={key} filters={filters} onApply={(f) => go(f)} />
      <ErrorNote error={page.error} />
      {!page.value && !page.error && <Loading what="the audit trail" />}
      {page.value && (
        <div className="list">
          <div className="list-tools">
            <Pager
              list={{ offset, limit: PAGE_SIZE, setOffset: (o) => go(filters, o) }}
              total={page.value.totalCount}
            />
          </div>
          <table aria-busy={page.loading}>
            <caption className="visually-hidden">Audit events</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What happened</th>
                <th scope="col">Identity</th>
                <th scope="col">Service</th>
                <th scope="col">Reference</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((event) => (
                <tr key={event.id}>
                  <td>
                    <Link to={`/audit/${event.id}`}>
                      <When at={event.createdAt} />
                    </Link>
                  </td>
                  <td>
                    <EventSentence event={event} />
                  </td>
                  <td>
                    <EntityLink id={event.identityId} names={identityNames} section="identities" />
                  </td>
                  <td>
                    <EntityLink id={event.serviceId} names={serviceNames} section="services" />
                  </td>
                  <td>
                    <code>{event.reference}</code>
                  </td>
                </tr>
              ))}
              {rows.length === 0 && (
                <tr>
                  <td colSpan={5} className="hint">
                    {filtered ? 'No event matches these filters.' : 'No events yet.'}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function AuditFilterForm({
  filters,
  onApply,
}: {
  filters: AuditFilters;
  onApply: (f: AuditFilters) => void;
}) {
  const [draft, setDraft] = useState({
    ...filters,
    from: localInputOf(filters.from),
    until: localInputOf(filters.until),
  });
  const set = (k: keyof AuditFilters) => (event: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [k]: event.target.value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({
      ...draft,
      from: instantOf(draft.from ?? '') ?? undefined,
      until: instantOf(draft.until ?? '') ?? undefined,
    });
  };
  const text = (k: keyof AuditFilters, label: string, placeholder: string, list?: string) => (
    <div className="field">
      <label htmlFor={`audit-${k}`}>{label}</label>
      <input
        id={`audit-${k}`}
        type="search"
        value={draft[k] ?? ''}
        placeholder={placeholder}
        list={list}
        onChange={set(k)}
      />
    </div>
  );
  return (
    <form className="card audit-filters" role="search" aria-label="Audit filters" onSubmit={submit}>
      {text('reference', 'Reference', '7K2Q-PX')}
      {text('identity', 'Identity', 'name or id')}
      {text('service', 'Service', 'name or id')}
      {text('type', 'Type', 'access.refused, admin.*', 'audit-types')}
      <datalist id="audit-types">
        {TYPE_SUGGESTIONS.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
      <div className="field">
        <label htmlFor="audit-from">From</label>
        <input id="audit-from" type="datetime-local" value={draft.from ?? ''} onChange={set('from')} />
      </div>
      <div className="field">
        <label htmlFor="audit-until">Until</label>
        <input id="audit-until" type="datetime-local" value={draft.until ?? ''} onChange={set('until')} />
      </div>
      <div className="audit-filter-buttons">
        <button type="submit">Search</button>
        <button type="button" className="secondary" onClick={() => onApply({})}>
          Clear
        </button>
      </div>
    </form>
  );
}
