/**
 * Event export: the webhook subscriptions (`GET /webhooks`) with their waiting and dead-lettered deliveries,
 * the dead-letter list across them (`GET /webhook-deliveries?state=dead`, each with Redeliver), and the syslog
 * export's status (`GET /event-export/syslog`; configured with controller flags, not here).
 */
import { api } from '../../api/client.js';
import { DataTable, type Column } from '../../components/data-table.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { Link } from '../../lib/router.js';
import { useList } from '../../lib/use-list.js';
import { useLoad } from '../../lib/use-load.js';
import { DeliveryList } from './delivery-list.js';
import type { SyslogStatus, Webhook } from './webhook-types.js';

export function WebhookListPage() {
  const list = useList<Webhook>('webhooks');
  const names = useLoad(() => api.get<Webhook[]>('/webhooks?limit=100').then((a) => a.data), []);
  const nameOf = (id: string) =>
    id === 'syslog' ? 'syslog' : (names.value?.find((h) => h.id === id)?.name ?? id);
  const columns: Column<Webhook>[] = [
    { label: 'Name', sortBy: 'name', render: (h) => <Link to={`/webhooks/${h.id}`}>{h.name}</Link> },
    { label: 'URL', render: (h) => <code>{h.url}</code> },
    { label: 'Event types', render: (h) => h.eventTypes.join(', ') },
    { label: 'Enabled', render: (h) => (h.enabled ? 'yes' : 'no') },
    { label: 'Waiting', render: (h) => h.pending },
    { label: 'Dead letters', render: (h) => h.dead },
  ];
  return (
    <>
      <div className="page-title">
        <h1>Webhooks</h1>
        <Link className="button" to="/webhooks/new">
          New webhook
        </Link>
      </div>
      <p className="hint">
        Each audit event of the types a subscription names is POSTed to its URL, signed with its secret
        (header <code>Postern-Signature</code>), at least once and in order; failures are retried with
        backoff, then dead-lettered.
      </p>
      <DataTable list={list} columns={columns} caption="Webhooks" />
      <section className="card" aria-labelledby="dead-letters">
        <h2 id="dead-letters">Dead letters</h2>
        <DeliveryList
          path="/webhook-deliveries?state=dead"
          caption="Dead letters"
          empty="None: every delivery went or is still being tried."
          webhookName={nameOf}
        />
      </section>
      <SyslogSection />
    </>
  );
}

function SyslogSection() {
  const status = useLoad(() => api.get<SyslogStatus>('/event-export/syslog').then((a) => a.data), []);
  const s = status.value;
  return (
    <section className="card" aria-labelledby="syslog-export">
      <h2 id="syslog-export">Syslog export</h2>
      <ErrorNote error={status.error} />
      {!s && !status.error && <Loading what="the syslog export" />}
      {s && !s.configured && (
        <p className="hint">
          Not configured: start the controller with <code>--syslog tcp://host:port</code> or{' '}
          <code>tls://host:port</code>.
        </p>
      )}
      {s?.configured && (
        <dl className="facts">
          <dt>Target</dt>
          <dd>
            <code>{s.target}</code>
          </dd>
          <dt>Connection</dt>
          <dd>{s.connected ? 'connected' : 'not connected'}</dd>
          <dt>Waiting</dt>
          <dd>
            {s.pending} of at most {s.capacity}
            {s.full && <strong> — full: new events are not exported until it drains</strong>}
          </dd>
          <dt>Not exported since start</dt>
          <dd>{s.dropped}</dd>
          <dt>Last error</dt>
          <dd>{s.lastError ?? '—'}</dd>
        </dl>
      )}
    </section>
  );
}
