/** One audit event: who, from where, about whom, its reference, and its details (an admin change's before and after). */
import { auditEvent } from '../../api/audit.js';
import { ErrorNote, Loading, When } from '../../components/status.js';
import { Link } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';
import { useNames } from '../../lib/use-names.js';
import { BeforeAfter, EntityLink, EventSentence, FailingChecks } from './audit-views.js';

export function AuditEventPage({ id }: { id: string }) {
  const loaded = useLoad(() => auditEvent(id), [id]);
  const event = loaded.value;
  const identityNames = useNames('identities', [event?.identityId]);
  const serviceNames = useNames('services', [event?.serviceId]);
  if (!event) return loaded.error ? <ErrorNote error={loaded.error} /> : <Loading what="the event" />;
  const { before, after, ...rest } = event.details;
  const isChange = 'before' in event.details || 'after' in event.details;
  return (
    <>
      <div className="page-title">
        <h1>
          Event <code>{event.reference}</code>
        </h1>
        <Link to="/audit">All events</Link>
      </div>
      <section className="card" aria-label="Event">
        <p>
          <EventSentence event={event} />
        </p>
        <dl className="facts">
          <dt>When</dt>
          <dd>
            <When at={event.createdAt} />
          </dd>
          <dt>Type</dt>
          <dd>
            <code>{event.type}</code>
          </dd>
          <dt>By</dt>
          <dd>
            {event.actor ? (
              <EntityLink
                id={event.actor.id}
                names={new Map([[event.actor.id, event.actor.name]])}
                section="identities"
              />
            ) : (
              <span className="hint">the controller</span>
            )}
          </dd>
          <dt>From address</dt>
          <dd>{event.address ?? <span className="hint">—</span>}</dd>
          <dt>Identity</dt>
          <dd>
            <EntityLink id={event.identityId} names={identityNames} section="identities" />
            {event.identityId && (
              <>
                {' '}
                (
                <Link to={`/identities/${event.identityId}/timeline?day=${event.createdAt.slice(0, 10)}`}>
                  its day
                </Link>
                )
              </>
            )}
          </dd>
          <dt>Service</dt>
          <dd>
            <EntityLink id={event.serviceId} names={serviceNames} section="services" />
          </dd>
          <dt>Reference</dt>
          <dd>
            <code>{event.reference}</code>
          </dd>
          <dt>Id</dt>
          <dd>
            <code>{event.id}</code>
          </dd>
        </dl>
      </section>
      {isChange && (
        <section className="card" aria-labelledby="before-after-heading">
          <h2 id="before-after-heading">Before and after</h2>
          <p className="hint">
            Secrets (passwords, tokens, TOTP secrets, recovery codes) are never on the trail.
          </p>
          <BeforeAfter details={{ before, after }} />
        </section>
      )}
      <section className="card" aria-labelledby="details-heading">
        <h2 id="details-heading">Details</h2>
        <FailingChecks details={event.details} />
        <pre className="value" aria-label="Details as JSON">
          {JSON.stringify(isChange ? rest : event.details, null, 2)}
        </pre>
      </section>
    </>
  );
}
