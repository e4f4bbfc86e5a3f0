/**
 * A service policy: Dial or Bind, AnyOf or AllOf, and the roles selecting identities, services and posture
 * checks (`#attribute`, `@id` or `@name`, `#all`), one per line; the API names a bad role by its position.
 * Each save is previewed first: who it newly refuses or lets in.
 */
import { useState } from 'react';
import type { ServicePolicy } from '../../api/types.js';
import { LinesField, SelectField, TextField, linesOf } from '../../components/fields.js';
import { FormFooter } from '../../components/form-footer.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { messageFor } from '../../lib/field-errors.js';
import { useEntityEditor, type EntityEditor } from '../../lib/use-entity-editor.js';

const CLAIMED = ['name', 'type', 'semantic', 'identityRoles', 'serviceRoles', 'postureCheckRoles'];
const ROLE_HINT = 'One per line: #attribute, @name (or @id), or #all.';

export function PolicyFormPage({ id }: { id: string | undefined }) {
  const editor = useEntityEditor<ServicePolicy>('service-policies', id, { previewed: true });
  if (id && !editor.existing.value) {
    return editor.existing.error ? (
      <ErrorNote error={editor.existing.error} />
    ) : (
      <Loading what="the policy" />
    );
  }
  return <PolicyForm editor={editor} initial={editor.existing.value} />;
}

/** `@id` roles shown by name where the API resolved one (it accepts `@name` back and stores the id). */
const rolesText = (roles: string[] = [], display?: { name: string }[]) =>
  roles.map((role, i) => display?.[i]?.name ?? role).join('\n');

function PolicyForm({
  editor,
  initial,
}: {
  editor: EntityEditor<ServicePolicy>;
  initial: ServicePolicy | undefined;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [type, setType] = useState<'Dial' | 'Bind'>(initial?.type ?? 'Dial');
  const [semantic, setSemantic] = useState<'AnyOf' | 'AllOf'>(initial?.semantic ?? 'AnyOf');
  const [identities, setIdentities] = useState(
    rolesText(initial?.identityRoles, initial?.identityRolesDisplay),
  );
  const [services, setServices] = useState(rolesText(initial?.serviceRoles, initial?.serviceRolesDisplay));
  const [checks, setChecks] = useState(
    rolesText(initial?.postureCheckRoles, initial?.postureCheckRolesDisplay),
  );
  const error = (field: string) => messageFor(editor.errors, field);
  return (
    <section className="card form-card">
      <h1>{initial ? `Service policy ${initial.name}` : 'New service policy'}</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void editor.save({
            name: name.trim(),
            type,
            semantic,
            identityRoles: linesOf(identities),
            serviceRoles: linesOf(services),
            postureCheckRoles: linesOf(checks),
          });
        }}
      >
        <TextField label="Name" name="name" value={name} onChange={setName} error={error('name')} />
        <SelectField
          label="Type"
          name="type"
          value={type}
          options={['Dial', 'Bind'] as const}
          onChange={setType}
        />
        <SelectField
          label="Semantic"
          name="semantic"
          value={semantic}
          options={[
            { value: 'AnyOf', label: 'AnyOf: one listed role is enough' },
            { value: 'AllOf', label: 'AllOf: every listed role is needed' },
          ]}
          onChange={setSemantic}
        />
        <LinesField
          label="Identities"
          name="identityRoles"
          value={identities}
          onChange={setIdentities}
          hint={ROLE_HINT}
          error={error('identityRoles')}
        />
        <LinesField
          label="Services"
          name="serviceRoles"
          value={services}
          onChange={setServices}
          hint={ROLE_HINT}
          error={error('serviceRoles')}
        />
        <LinesField
          label="Posture checks"
          name="postureCheckRoles"
          value={checks}
          onChange={setChecks}
          hint={`${ROLE_HINT} Every check selected must pass.`}
          error={error('postureCheckRoles')}
        />
        <FormFooter editor={editor} claimed={CLAIMED} noun="policy" />
      </form>
    </section>
  );
}
