/**
 * "What happened to this device today?": one identity's events of one day (the administrator's local day),
 * oldest to newest, each in plain words; the previous and next day a click away.
 */
import { auditFilterOf, auditPage } from '../../api/audit.js';
import { quoted } from '../../api/list-query.js';
import { api } from '../../api/client.js';
import type { Identity } from '../../api/types.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { Link } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';
import { EventSentence } from './audit-views.js';

/** The most events one day shows; a busier day says so and links to the filtered trail. */
const DAY_LIMIT = 500;

const pad = (n: number) => String(n).padStart(2, '0');
const dayText = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** Local midnight of `YYYY-MM-DD`, or of today when the text is no such day. */
function dayStart(text: string | null): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text ?? '');
  const now = new Date();
  return m
    ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
    : new Date(now.getFullYear(), now.getMonth(), now.getDate());
}

export function IdentityTimelinePage({ id, day }: { id: string; day: string | null }) {
  const start = dayStart(day);
  const end = new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1);
  const previous = new Date(start.getFullYear(), start.getMonth(), start.getDate() - 1);
  const isToday = dayText(start) === dayText(new Date());
  const identity = useLoad(() => api.get<Identity>(`/identities/${id}`).then((a) => a.data), [id]);
  const events = useLoad(async () => {
    const filter = await auditFilterOf({ from: start.toISOString(), until: end.toISOString() });
    return auditPage(`identityId = ${quoted(id)} and ${filter}`, 'asc', 0, DAY_LIMIT);
  }, [id, start.getTime()]);
  const rows = events.value?.items ?? [];
  const name = identity.value?.name ?? id;
  const title = isToday ? 'today' : start.toLocaleDateString(undefined, { dateStyle: 'full' });
  return (
    <>
      <div className="page-title">
        <h1>
          What happened to {name} {isToday ? 'today' : `on ${title}`}
        </h1>
        <Link to={`/identities/${id}`}>Back to {name}</Link>
      </div>
      <nav className="pager" aria-label="Days">
        <Link to={`/identities/${id}/timeline?day=${dayText(previous)}`}>Previous day</Link>
        {!isToday && <Link to={`/identities/${id}/timeline?day=${dayText(end)}`}>Next day</Link>}
        {!isToday && <Link to={`/identities/${id}/timeline`}>Today</Link>}
      </nav>
      <ErrorNote error={events.error ?? identity.error} />
      {!events.value && !events.error && <Loading what="the day's events" />}
      {events.value && (
        <section className="card" aria-label="Timeline">
          {rows.length === 0 ? (
            <p className="hint">
              Nothing happened to {name} {isToday ? 'today' : 'that day'}.
            </p>
          ) : (
            <ol className="timeline">
              {rows.map((event) => (
                <li key={event.id}>
                  <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleTimeString()}</time>{' '}
                  <EventSentence event={event} />{' '}
                  <Link to={`/audit/${event.id}`} className="hint">
                    ref <code>{event.reference}</code>
                  </Link>
                </li>
              ))}
            </ol>
          )}
          {events.value.totalCount > rows.length && (
            <p className="hint">
              The first {rows.length} of {events.value.totalCount} events;{' '}
              <Link
                to={`/audit?identity=${encodeURIComponent(id)}&from=${encodeURIComponent(start.toISOString())}&until=${encodeURIComponent(end.toISOString())}`}
              >
                all of them in the audit trail
              </Link>
              .
            </p>
          )}
        </section>
      )}
    </>
  );
}
