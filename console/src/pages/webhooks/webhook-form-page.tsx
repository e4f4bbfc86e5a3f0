/**
 * A webhook subscription: name, URL, the event types it takes (every type, or those ticked from the trail's
 * list), the signing secret and whether it is enabled; for an existing one, its deliveries with the last
 * error and Redeliver. The secret is write-only: the API never answers it, so the field starts empty and an
 * edit that leaves it empty keeps the current one.
 */
import { useState } from 'react';
import { CheckboxField, TextField } from '../../components/fields.js';
import { FormFooter } from '../../components/form-footer.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { messageFor } from '../../lib/field-errors.js';
import { useEntityEditor, type EntityEditor } from '../../lib/use-entity-editor.js';
import { DeliveryList } from './delivery-list.js';
import { EVENT_TYPES, type Webhook } from './webhook-types.js';

const CLAIMED = ['name', 'url', 'eventTypes', 'secret', 'enabled'];
const EVERY = '*';

export function WebhookFormPage({ id }: { id: string | undefined }) {
  const editor = useEntityEditor<Webhook>('webhooks', id);
  if (id && !editor.existing.value) {
    return editor.existing.error ? (
      <ErrorNote error={editor.existing.error} />
    ) : (
      <Loading what="the webhook" />
    );
  }
  return (
    <>
      <WebhookForm editor={editor} initial={editor.existing.value} />
      {id && (
        <section className="card" aria-labelledby="deliveries">
          <h2 id="deliveries">Deliveries</h2>
          <DeliveryList path={`/webhooks/${id}/deliveries`} caption="Deliveries" empty="No deliveries yet." />
        </section>
      )}
    </>
  );
}

function WebhookForm({ editor, initial }: { editor: EntityEditor<Webhook>; initial: Webhook | undefined }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [url, setUrl] = useState(initial?.url ?? '');
  const [every, setEvery] = useState(initial ? initial.eventTypes.includes(EVERY) : true);
  const [types, setTypes] = useState<string[]>(initial?.eventTypes.filter((t) => t !== EVERY) ?? []);
  const [secret, setSecret] = useState('');
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  // Types a subscription names that this console does not know (a newer controller's) are kept as they are.
  const known: readonly string[] = EVENT_TYPES;
  const shown = [...known, ...types.filter((t) => !known.includes(t))];
  const toggle = (type: string, on: boolean) =>
    setTypes((now) => (on ? [...now, type] : now.filter((t) => t !== type)));
  return (
    <section className="card form-card">
      <h1>{initial ? `Webhook ${initial.name}` : 'New webhook'}</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void editor.save({
            name: name.trim(),
            url: url.trim(),
            eventTypes: every ? [EVERY] : types,
            enabled,
            // Empty on an edit: the current secret stays (it is never shown, so it cannot be shown back).
            ...(secret || !initial ? { secret } : {}),
          });
        }}
      >
        <TextField
          label="Name"
          name="name"
          value={name}
          onChange={setName}
          error={messageFor(editor.errors, 'name')}
        />
        <TextField
          label="URL"
          name="url"
          value={url}
          onChange={setUrl}
          placeholder="https://siem.example.com/postern"
          hint="https://; plain http:// only to this machine (loopback)."
          error={messageFor(editor.errors, 'url')}
        />
        <fieldset aria-describedby="event-types-hint">
          <legend>Event types</legend>
          <p id="event-types-hint" className="hint">
            The audit events delivered (docs/AUDIT.md describes each).
          </p>
          <label className="check">
            <input
              type="checkbox"
              name="everyEventType"
              checked={every}
              onChange={(event) => setEvery(event.target.checked)}
            />
            Every type (<code>*</code>), including types added later
          </label>
          {!every &&
            shown.map((type) => (
              <label key={type} className="check">
                <input
                  type="checkbox"
                  name="eventTypes"
                  value={type}
                  checked={types.includes(type)}
                  onChange={(event) => toggle(type, event.target.checked)}
                />
                <code>{type}</code>
              </label>
            ))}
          {messageFor(editor.errors, 'eventTypes') && (
            <p className="field-error" role="alert">
              {messageFor(editor.errors, 'eventTypes')}
            </p>
          )}
        </fieldset>
        <TextField
          label={initial ? 'New secret' : 'Secret'}
          name="secret"
          type="password"
          autoComplete="new-password"
          value={secret}
          onChange={setSecret}
          hint={
            initial
              ? 'Write-only: the current secret is never shown. Leave empty to keep it; a new one rotates it.'
              : 'Keys the Postern-Signature HMAC; 16 to 256 characters. Write-only: never shown again.'
          }
          error={messageFor(editor.errors, 'secret')}
        />
        <CheckboxField label="Enabled" name="enabled" checked={enabled} onChange={setEnabled} />
        <FormFooter editor={editor} claimed={CLAIMED} noun="webhook" />
      </form>
    </section>
  );
}
