/**
 * How the identity signs in (`GET /identities/<id>/authenticators`): its password login and every certificate
 * login enrollment gave it, with when each certificate expires. Revoking a certificate login
 * (`DELETE /authenticators/<id>`) revokes its certificate: that device can no longer sign in.
 */
import { api } from '../../../api/client.js';
import type { Authenticator } from '../../../api/types.js';
import { ConfirmButton } from '../../../components/confirm-button.js';
import { ErrorNote, When } from '../../../components/status.js';
import { useLoad } from '../../../lib/use-load.js';

export function SignInMethodsSection({
  identityId,
  identityName,
  tick,
  onChanged,
}: {
  identityId: string;
  identityName: string;
  tick: number;
  onChanged: () => void;
}) {
  const methods = useLoad(
    () =>
      api
        .get<Authenticator[]>(`/identities/${encodeURIComponent(identityId)}/authenticators?limit=100`)
        .then((a) => a.data),
    [identityId, tick],
  );
  const certificates = methods.value?.filter((a) => a.method === 'cert') ?? [];
  const password = methods.value?.find((a) => a.method === 'updb');
  return (
    <section className="card" aria-labelledby="sign-in-methods-heading">
      <h2 id="sign-in-methods-heading">Sign-in methods</h2>
      <ErrorNote error={methods.error} />
      {methods.value && (
        <p>
          Password login: {password ? <code>{password.username}</code> : 'none'}.{' '}
          {certificates.length === 0
            ? 'No certificate login: no device has enrolled as this identity.'
            : `${certificates.length} certificate login${certificates.length === 1 ? '' : 's'}.`}
        </p>
      )}
      {certificates.length > 0 && (
        <table aria-label="Certificate logins">
          <thead>
            <tr>
              <th scope="col">Certificate</th>
              <th scope="col">Enrolled</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {certificates.map((c) => (
              <tr key={c.id}>
                <td>
                  <code title={c.fingerprint}>{c.fingerprint?.slice(0, 16)}…</code>
                </td>
                <td>
                  <When at={c.createdAt} />
                </td>
                <td>{c.expiresAt ? <When at={c.expiresAt} /> : 'unknown'}</td>
                <td>
                  <ConfirmButton
                    label="Revoke"
                    question={`Revoke this certificate? The device that holds it can no longer sign in as ${identityName}.`}
                    onConfirm={async () => {
                      await api.delete(`/authenticators/${c.id}`);
                      onChanged();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
