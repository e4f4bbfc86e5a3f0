/**
 * Granting an exception: whom (one identity, or the identities some roles select), from which check (or
 * every check), until when (a week unless changed; the controller allows at most its configured maximum, 90
 * days by default) and why. The API records who granted it, and names any field it refuses.
 */
import { useState } from 'react';
import { api } from '../../api/client.js';
import type { Named } from '../../api/types.js';
import { DateTimeField } from '../../components/date-time-field.js';
import { EntityPicker } from '../../components/entity-picker.js';
import { LinesField, SelectField } from '../../components/fields.js';
import { ErrorNote } from '../../components/status.js';
import { fieldErrorsOf, messageFor, unclaimed, type FieldErrors } from '../../lib/field-errors.js';
import { Link, navigate } from '../../lib/router.js';
import {
  DEFAULT_EXCEPTION_DAYS,
  DEFAULT_MAX_EXCEPTION_DAYS,
  exceptionBody,
  initialExceptionState,
  type ExceptionFormState,
} from './exception-form-state.js';
import { EXCEPTIONS } from './exception-list-page.js';

const CLAIMED = ['identityId', 'identityRoles', 'postureCheckId', 'expiresAt', 'reason'];

export function ExceptionCreatePage() {
  const [state, setState] = useState<ExceptionFormState>(() => initialExceptionState());
  const [identity, setIdentity] = useState<Named | undefined>();
  const [check, setCheck] = useState<Named | undefined>();
  const [errors, setErrors] = useState<FieldErrors>([]);
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const change = (patch: Partial<ExceptionFormState>) => setState((now) => ({ ...now, ...patch }));
  const error = (field: string) => messageFor(errors, field);

  const grant = async () => {
    const built = exceptionBody(state);
    setFailure(null);
    if ('problems' in built) return setErrors(built.problems);
    setErrors([]);
    setBusy(true);
    try {
      const created = await api.post<{ id: string }>(`/${EXCEPTIONS}`, built.body);
      navigate(`/${EXCEPTIONS}/${created.data.id}`);
    } catch (err) {
      setErrors(fieldErrorsOf(err));
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card form-card">
      <h1>New exception</h1>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void grant();
        }}
      >
        <SelectField
          label="For"
          name="target"
          value={state.target}
          options={[
            { value: 'identity', label: 'One identity' },
            { value: 'roles', label: 'The identities some roles select' },
          ]}
          onChange={(target) => change({ target })}
        />
        {state.target === 'identity' ? (
          <>
            <EntityPicker
              label="Identity"
              collection="identities"
              selected={identity}
              onSelect={(chosen) => {
                setIdentity(chosen);
                change({ identityId: chosen.id });
              }}
            />
            {error('identityId') && (
              <p className="field-error" role="alert">
                {error('identityId')}
              </p>
            )}
          </>
        ) : (
          <LinesField
            label="Identity roles"
            name="identityRoles"
            value={state.roles}
            onChange={(roles) => change({ roles })}
            hint="One per line: #attribute or @name (or @id). Any of them selects an identity."
            error={error('identityRoles')}
          />
        )}
        <SelectField
          label="From"
          name="scope"
          value={state.scope}
          options={[
            { value: 'one', label: 'One posture check' },
            { value: 'all', label: 'Every posture check' },
          ]}
          onChange={(scope) => change({ scope })}
        />
        {state.scope === 'one' && (
          <>
            <EntityPicker
              label="Posture check"
              collection="posture-checks"
              selected={check}
              onSelect={(chosen) => {
                setCheck(chosen);
                change({ postureCheckId: chosen.id });
              }}
            />
            {error('postureCheckId') && (
              <p className="field-error" role="alert">
                {error('postureCheckId')}
              </p>
            )}
          </>
        )}
        <DateTimeField
          label="Expires"
          name="expiresAt"
          value={state.expiresAt}
          onChange={(expiresAt) => change({ expiresAt })}
          hint={`Your local time; ${DEFAULT_EXCEPTION_DAYS} days from now unless you change it. At most ${DEFAULT_MAX_EXCEPTION_DAYS} days ahead (the controller's default maximum).`}
          error={error('expiresAt')}
        />
        <LinesField
          label="Reason"
          name="reason"
          value={state.reason}
          onChange={(reason) => change({ reason })}
          hint="Required: why this device may fail the check for now (kept with the exception's history)."
          rows={2}
          error={error('reason')}
        />
        {unclaimed(errors, CLAIMED).map((p) => (
          <p key={p.field} className="error" role="alert">
            {p.field}: {p.reason}
          </p>
        ))}
        {errors.length === 0 && <ErrorNote error={failure} />}
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Granting…' : 'Grant exception'}
          </button>
          <Link to={`/${EXCEPTIONS}`}>Back to the list</Link>
        </div>
      </form>
    </section>
  );
}
