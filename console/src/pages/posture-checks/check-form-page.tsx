/**
 * A posture check: its type (fixed once created), name, attributes, the advice shown to a user it blocks, and
 * the type's own fields. The API checks everything and names each problem by field
 * (`operatingSystems[0].versions[0]`); the form shows it at that input.
 */
import { useState } from 'react';
import type { PostureCheck } from '../../api/types.js';
import { LinesField, SelectField, TextField } from '../../components/fields.js';
import { FormFooter } from '../../components/form-footer.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { messageFor } from '../../lib/field-errors.js';
import { useEntityEditor, type EntityEditor } from '../../lib/use-entity-editor.js';
import {
  CHECK_TYPES,
  CHECK_TYPE_NAMES,
  CLAIMED_FIELDS,
  bodyOf,
  describedType,
  initialState,
  type CheckFormState,
} from './check-form-state.js';
import { DescriptorFields } from './type-fields/descriptor-fields.js';
import { MfaFields } from './type-fields/mfa-fields.js';
import { OsFields } from './type-fields/os-fields.js';
import { ProcessMultiFields } from './type-fields/process-multi-fields.js';
import { ProcessRuleFields } from './type-fields/process-rule-fields.js';
import { EnforcementSection } from './enforcement/enforcement-section.js';
import { ENFORCEMENT_FIELDS, enforcementBody, enforcementStateOf } from './enforcement/enforcement-state.js';

export function CheckFormPage({ id }: { id: string | undefined }) {
  const editor = useEntityEditor<PostureCheck>('posture-checks', id, { previewed: true });
  if (id && !editor.existing.value) {
    return editor.existing.error ? <ErrorNote error={editor.existing.error} /> : <Loading what="the check" />;
  }
  return <CheckForm editor={editor} initial={editor.existing.value} />;
}

function CheckForm({
  editor,
  initial,
}: {
  editor: EntityEditor<PostureCheck>;
  initial: PostureCheck | undefined;
}) {
  const [state, setState] = useState<CheckFormState>(() => initialState(initial));
  const change = (patch: Partial<CheckFormState>) => setState((now) => ({ ...now, ...patch }));
  const [enforcement, setEnforcement] = useState(() => enforcementStateOf(initial?.enforcement));
  const errors = editor.errors;
  const described = describedType(state.typeId);
  return (
    <section className="card form-card">
      <h1>{initial ? `Posture check ${initial.name}` : 'New posture check'}</h1>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void editor.save({ ...bodyOf(state), enforcement: enforcementBody(enforcement) });
        }}
      >
        <SelectField
          label="Type"
          name="typeId"
          value={state.typeId}
          options={CHECK_TYPES.filter((t) => !initial || t === state.typeId).map((t) => ({
            value: t,
            label: CHECK_TYPE_NAMES[t],
          }))}
          onChange={(typeId) => change({ typeId })}
          hint={initial ? 'A check keeps its type.' : undefined}
          error={messageFor(errors, 'typeId')}
        />
        <TextField
          label="Name"
          name="name"
          value={state.name}
          onChange={(name) => change({ name })}
          error={messageFor(errors, 'name')}
        />
        <TextField
          label="Attributes"
          name="roleAttributes"
          value={state.attributes}
          onChange={(attributes) => change({ attributes })}
          hint="Comma-separated; policies select checks by them (#managed)."
          error={messageFor(errors, 'roleAttributes')}
        />
        {state.typeId === 'OS' && (
          <OsFields
            value={state.operatingSystems}
            onChange={(operatingSystems) => change({ operatingSystems })}
            errors={errors}
          />
        )}
        {state.typeId === 'MAC' && (
          <LinesField
            label="Allowed MAC addresses"
            name="macAddresses"
            value={state.macAddresses}
            onChange={(macAddresses) => change({ macAddresses })}
            hint="One per line, e.g. AA-BB-CC-DD-EE-FF. Any one of them passes."
            error={messageFor(errors, 'macAddresses')}
          />
        )}
        {state.typeId === 'DOMAIN' && (
          <LinesField
            label="Allowed Windows domains"
            name="domains"
            value={state.domains}
            onChange={(domains) => change({ domains })}
            hint="One per line; compared ignoring case."
            error={messageFor(errors, 'domains')}
          />
        )}
        {state.typeId === 'PROCESS' && (
          <fieldset>
            <legend>Required process</legend>
            <ProcessRuleFields
              rule={state.process}
              onChange={(process) => change({ process })}
              errors={errors}
              prefix="process"
            />
          </fieldset>
        )}
        {state.typeId === 'PROCESS_MULTI' && (
          <ProcessMultiFields state={state} onChange={change} errors={errors} />
        )}
        {state.typeId === 'MFA' && <MfaFields state={state} onChange={change} errors={errors} />}
        {described && (
          <DescriptorFields
            descriptor={described}
            values={state.options[state.typeId] ?? {}}
            onChange={(values) => change({ options: { ...state.options, [state.typeId]: values } })}
            errors={errors}
          />
        )}
        <EnforcementSection value={enforcement} onChange={setEnforcement} errors={errors} />
        <LinesField
          label="Advice for a blocked user"
          name="remediation"
          value={state.remediation}
          onChange={(remediation) => change({ remediation })}
          hint="Shown as written to a user this check blocks: a sentence and a link."
          rows={2}
          error={messageFor(errors, 'remediation')}
        />
        <FormFooter editor={editor} claimed={[...CLAIMED_FIELDS, ...ENFORCEMENT_FIELDS]} noun="check" />
      </form>
    </section>
  );
}
