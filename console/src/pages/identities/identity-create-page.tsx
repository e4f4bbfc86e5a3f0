/**
 * A new identity and how its device first signs in: a one-time enrollment token (OpenZiti's
 * `enrollment: {ott: true}` for a certificate, or `{updb: "<username>"}` for a password the user chooses), a
 * password set here (`POST /authenticators`), or nothing yet. The API's field errors show at the fields.
 */
import { useState } from 'react';
import { api } from '../../api/client.js';
import { errorText } from '../../api/api-error.js';
import type { AuthPolicy } from '../../api/types.js';
import { CheckboxField, SelectField, TextField, attributesOf } from '../../components/fields.js';
import { ErrorNote } from '../../components/status.js';
import { fieldErrorsOf, messageFor, unclaimed, type FieldErrors } from '../../lib/field-errors.js';
import { markCreated } from '../../lib/just-created.js';
import { Link, navigate } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';

const TYPES = ['User', 'Device', 'Service', 'Default'] as const;
const CLAIMED = [
  'name',
  'type',
  'isAdmin',
  'roleAttributes',
  'authPolicyId',
  'username',
  'password',
  'enrollment',
];

type FirstSignIn = 'ott' | 'updb' | 'password' | 'none';
const FIRST_SIGN_IN: { value: FirstSignIn; label: string }[] = [
  { value: 'ott', label: 'One-time enrollment token: the device gets a certificate' },
  { value: 'updb', label: 'One-time enrollment token: the user chooses a password' },
  { value: 'password', label: 'A password set here' },
  { value: 'none', label: 'Nothing yet' },
];

const enrollmentFor = (how: FirstSignIn, username: string) =>
  how === 'ott' ? { enrollment: { ott: true } } : how === 'updb' ? { enrollment: { updb: username } } : {};

export function IdentityCreatePage() {
  const [name, setName] = useState('');
  const [type, setType] = useState<(typeof TYPES)[number]>('User');
  const [attributes, setAttributes] = useState('');
  const [isAdmin, setIsAdmin] = useState(false);
  const [authPolicyId, setAuthPolicyId] = useState('default');
  const [firstSignIn, setFirstSignIn] = useState<FirstSignIn>('ott');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>([]);
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  /** set when the identity was made but its password login was refused */
  const [createdId, setCreatedId] = useState<string | undefined>();
  const policies = useLoad(() => api.get<AuthPolicy[]>('/auth-policies?limit=100').then((a) => a.data), []);

  const create = async () => {
    setBusy(true);
    setErrors([]);
    setFailure(null);
    // After a refused password login the identity exists: a second try adds only the login.
    let id = createdId;
    try {
      if (!id) {
        const created = await api.post<{ id: string }>('/identities', {
          name: name.trim(),
          type,
          isAdmin,
          roleAttributes: attributesOf(attributes),
          authPolicyId,
          ...enrollmentFor(firstSignIn, username.trim()),
        });
        id = created.data.id;
      }
      if (firstSignIn === 'password') {
        await api.post('/authenticators', {
          method: 'updb',
          identityId: id,
          username: username.trim(),
          password,
        });
      }
      markCreated(id);
      navigate(`/identities/${id}`);
    } catch (err) {
      setErrors(fieldErrorsOf(err));
      setFailure(err);
      setCreatedId(id);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card form-card">
      <h1>New identity</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <TextField
          label="Name"
          name="name"
          value={name}
          onChange={setName}
          error={messageFor(errors, 'name')}
        />
        <SelectField label="Type" name="type" value={type} options={TYPES} onChange={setType} />
        <TextField
          label="Attributes"
          name="roleAttributes"
          value={attributes}
          onChange={setAttributes}
          hint="Comma-separated, e.g. sales, laptops. Policies select identities by them (#sales)."
          error={messageFor(errors, 'roleAttributes')}
        />
        <SelectField
          label="Auth policy"
          name="authPolicyId"
          value={authPolicyId}
          options={(policies.value ?? [{ id: 'default', name: 'Default' } as AuthPolicy]).map((p) => ({
            value: p.id,
            label: p.name + (p.secondary?.requireTotp ? ' (TOTP required)' : ''),
          }))}
          onChange={setAuthPolicyId}
          error={messageFor(errors, 'authPolicyId')}
        />
        <CheckboxField label="Administrator" name="isAdmin" checked={isAdmin} onChange={setIsAdmin} />
        <SelectField
          label="First sign-in"
          name="firstSignIn"
          value={firstSignIn}
          options={FIRST_SIGN_IN}
          onChange={setFirstSignIn}
          hint="A token shows on the identity's page as a QR code with its expiry, for the device's agent."
        />
        {(firstSignIn === 'updb' || firstSignIn === 'password') && (
          <TextField
            label="Username"
            name="username"
            value={username}
            onChange={setUsername}
            hint="At least 4 characters."
            error={messageFor(errors, firstSignIn === 'updb' ? 'enrollment' : 'username')}
          />
        )}
        {firstSignIn === 'password' && (
          <TextField
            label="Password"
            name="password"
            type="password"
            value={password}
            onChange={setPassword}
            autoComplete="new-password"
            hint="At least 5 characters."
            error={messageFor(errors, 'password')}
          />
        )}
        {unclaimed(errors, CLAIMED).map((p) => (
          <p key={p.field} className="error" role="alert">
            {p.field}: {p.reason}
          </p>
        ))}
        {errors.length === 0 && !createdId && <ErrorNote error={failure} />}
        {createdId && (
          <p className="notice" role="status">
            The identity was created; its password login was not ({errorText(failure)}).{' '}
            <Link to={`/identities/${createdId}`}>Open the identity</Link> to add one later.
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create identity'}
          </button>
          <Link to="/identities">Cancel</Link>
        </div>
      </form>
    </section>
  );
}
