/**
 * A service: name, attributes, configs (at most one per config type, as the API checks) and encryption; for
 * an existing one, the policies that select it.
 */
import { useState } from 'react';
import { api } from '../../api/client.js';
import type { Config, Service, ServicePolicy } from '../../api/types.js';
import { CheckboxField, TextField, attributesOf } from '../../components/fields.js';
import { FormFooter } from '../../components/form-footer.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { RolesView } from '../../components/value-view.js';
import { messageFor } from '../../lib/field-errors.js';
import { Link } from '../../lib/router.js';
import { useEntityEditor, type EntityEditor } from '../../lib/use-entity-editor.js';
import { useLoad } from '../../lib/use-load.js';

const CLAIMED = ['name', 'roleAttributes', 'configs', 'encryptionRequired'];

export function ServiceFormPage({ id }: { id: string | undefined }) {
  const editor = useEntityEditor<Service>('services', id);
  if (id && !editor.existing.value) {
    return editor.existing.error ? (
      <ErrorNote error={editor.existing.error} />
    ) : (
      <Loading what="the service" />
    );
  }
  return (
    <>
      <ServiceForm editor={editor} initial={editor.existing.value} />
      {id && <PoliciesOfService serviceId={id} />}
    </>
  );
}

function ServiceForm({ editor, initial }: { editor: EntityEditor<Service>; initial: Service | undefined }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [attributes, setAttributes] = useState(initial?.roleAttributes.join(', ') ?? '');
  const [configs, setConfigs] = useState<string[]>(initial?.configs ?? []);
  const [encryption, setEncryption] = useState(initial?.encryptionRequired ?? true);
  const available = useLoad(() => api.get<Config[]>('/configs?limit=500').then((a) => a.data), []);
  const toggle = (configId: string, on: boolean) =>
    setConfigs((now) => (on ? [...now, configId] : now.filter((c) => c !== configId)));
  return (
    <section className="card form-card">
      <h1>{initial ? `Service ${initial.name}` : 'New service'}</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void editor.save({
            name: name.trim(),
            roleAttributes: attributesOf(attributes),
            configs,
            encryptionRequired: encryption,
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
          label="Attributes"
          name="roleAttributes"
          value={attributes}
          onChange={setAttributes}
          hint="Comma-separated; policies select services by them."
          error={messageFor(editor.errors, 'roleAttributes')}
        />
        <fieldset aria-describedby="configs-hint">
          <legend>Configs</legend>
          <p id="configs-hint" className="hint">
            At most one of each type: <code>intercept.v1</code> (the address clients use),{' '}
            <code>host.v1</code> (where the router dials). <Link to="/configs/new">New config</Link>
          </p>
          {(available.value ?? []).map((c) => (
            <label key={c.id} className="check">
              <input
                type="checkbox"
                name="configs"
                checked={configs.includes(c.id)}
                onChange={(event) => toggle(c.id, event.target.checked)}
              />
              {c.name} <span className="hint">({c.configType.name})</span>
            </label>
          ))}
          {available.value?.length === 0 && <p className="hint">No configs yet.</p>}
          {messageFor(editor.errors, 'configs') && (
            <p className="field-error" role="alert">
              {messageFor(editor.errors, 'configs')}
            </p>
          )}
        </fieldset>
        <CheckboxField
          label="Encryption required"
          name="encryptionRequired"
          checked={encryption}
          onChange={setEncryption}
        />
        <FormFooter editor={editor} claimed={CLAIMED} noun="service" />
      </form>
    </section>
  );
}

function PoliciesOfService({ serviceId }: { serviceId: string }) {
  const policies = useLoad(
    () => api.get<ServicePolicy[]>(`/services/${serviceId}/service-policies?limit=500`).then((a) => a.data),
    [serviceId],
  );
  return (
    <section className="card">
      <h2>Service policies selecting it</h2>
      <ErrorNote error={policies.error} />
      {policies.value?.length === 0 && <p className="hint">None: nobody can reach this service.</p>}
      <ul className="plain">
        {(policies.value ?? []).map((p) => (
          <li key={p.id}>
            <Link to={`/service-policies/${p.id}`}>{p.name}</Link> ({p.type}): identities{' '}
            <RolesView roles={p.identityRoles} display={p.identityRolesDisplay} />, checks{' '}
            <RolesView roles={p.postureCheckRoles} display={p.postureCheckRolesDisplay} />
          </li>
        ))}
      </ul>
    </section>
  );
}
