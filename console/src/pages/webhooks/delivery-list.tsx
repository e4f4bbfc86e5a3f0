/**
 * Deliveries with what became of them (state, attempts, the next attempt, the receiver's last error), newest
 * first as the API lists them; a dead or delivered one has a Redeliver button (`POST
 * /webhook-deliveries/{id}/redeliver`), after which the list is read again.
 */
import { useState } from 'react';
import { api } from '../../api/client.js';
import { errorText } from '../../api/api-error.js';
import { ErrorNote, Loading, When } from '../../components/status.js';
import { useLoad } from '../../lib/use-load.js';
import type { WebhookDelivery } from './webhook-types.js';

export function DeliveryList({
  path,
  caption,
  empty,
  webhookName,
}: {
  /** `/webhooks/{id}/deliveries` or `/webhook-deliveries?state=dead` */
  path: string;
  caption: string;
  empty: string;
  webhookName?: (id: string) => string;
}) {
  const deliveries = useLoad(
    () => api.get<WebhookDelivery[]>(`${path}${path.includes('?') ? '&' : '?'}limit=100`).then((a) => a.data),
    [path],
  );
  if (deliveries.error) return <ErrorNote error={deliveries.error} />;
  if (!deliveries.value) return <Loading what={caption.toLowerCase()} />;
  if (deliveries.value.length === 0) return <p className="hint">{empty}</p>;
  return (
    <table>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {webhookName && <th scope="col">Webhook</th>}
          <th scope="col">Event type</th>
          <th scope="col">State</th>
          <th scope="col">Attempts</th>
          <th scope="col">Next attempt</th>
          <th scope="col">Last error</th>
          <th scope="col">Recorded</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {deliveries.value.map((d) => (
          <tr key={d.id} data-delivery={d.id}>
            {webhookName && <td>{webhookName(d.webhookId)}</td>}
            <td>
              <code>{d.eventType}</code>
            </td>
            <td>{d.state}</td>
            <td>{d.attempts}</td>
            <td>{d.state === 'pending' ? <When at={d.nextAttemptAt} /> : '—'}</td>
            <td className="last-error">{d.lastError ?? '—'}</td>
            <td>
              <When at={d.createdAt} />
            </td>
            <td>{d.state !== 'pending' && <RedeliverButton id={d.id} onDone={deliveries.reload} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RedeliverButton({ id, onDone }: { id: string; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          try {
            await api.post(`/webhook-deliveries/${id}/redeliver`);
            onDone();
          } catch (err) {
            setError(errorText(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        Redeliver
      </button>
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}
