/** A config: its type and its data as JSON, checked by the API against the type's schema. */
import { useState } from 'react';
import { api } from '../../api/client.js';
import type { Config, ConfigType } from '../../api/types.js';
import { LinesField, SelectField, TextField } from '../../components/fields.js';
import { FormFooter } from '../../components/form-footer.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { messageFor } from '../../lib/field-errors.js';
import { useEntityEditor, type EntityEditor } from '../../lib/use-entity-editor.js';
import { useLoad } from '../../lib/use-load.js';

const CLAIMED = ['name', 'configTypeId', 'data'];
const EXAMPLES: Record<string, string> = {
  'intercept.v1': '{"protocols":["tcp"],"addresses":["crm.internal"],"portRanges":[{"low":443,"high":443}]}',
  'host.v1': '{"protocol":"tcp","address":"10.0.0.12","port":443}',
};

export function ConfigFormPage({ id }: { id: string | undefined }) {
  const editor = useEntityEditor<Config>('configs', id);
  if (id && !editor.existing.value) {
    return editor.existing.error ? (
      <ErrorNote error={editor.existing.error} />
    ) : (
      <Loading what="the config" />
    );
  }
  return <ConfigForm editor={editor} initial={editor.existing.value} />;
}

function ConfigForm({ editor, initial }: { editor: EntityEditor<Config>; initial: Config | undefined }) {
  const types = useLoad(() => api.get<ConfigType[]>('/config-types?limit=100').then((a) => a.data), []);
  const [name, setName] = useState(initial?.name ?? '');
  // By name: the API takes a config type's id or name, and the names are what people know.
  const [typeId, setTypeId] = useState(initial?.configType.name ?? 'intercept.v1');
  const [data, setData] = useState(
    initial ? JSON.stringify(initial.data, null, 2) : EXAMPLES['intercept.v1']!,
  );
  const [jsonError, setJsonError] = useState<string | undefined>();
  return (
    <section className="card form-card">
      <h1>{initial ? `Config ${initial.name}` : 'New config'}</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          let parsed: unknown;
          try {
            parsed = JSON.parse(data);
          } catch (err) {
            return setJsonError(`not JSON: ${(err as Error).message}`);
          }
          setJsonError(undefined);
          void editor.save({ name: name.trim(), configTypeId: typeId, data: parsed });
        }}
      >
        <TextField
          label="Name"
          name="name"
          value={name}
          onChange={setName}
          error={messageFor(editor.errors, 'name')}
        />
        <SelectField
          label="Type"
          name="configTypeId"
          value={typeId}
          options={(types.value ?? []).map((t) => t.name)}
          onChange={(next) => {
            setTypeId(next);
            if (!initial && EXAMPLES[next]) setData(EXAMPLES[next]!);
          }}
          error={messageFor(editor.errors, 'configTypeId')}
        />
        <LinesField
          label="Data (JSON)"
          name="data"
          rows={8}
          value={data}
          onChange={setData}
          hint="Checked against the config type's schema."
          error={jsonError ?? messageFor(editor.errors, 'data')}
        />
        <FormFooter editor={editor} claimed={CLAIMED} noun="config" />
      </form>
    </section>
  );
}
