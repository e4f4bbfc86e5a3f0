/**
 * The identity's API sessions (`GET /api-sessions?filter=identity="<id>"`), each with End
 * (`DELETE /api-sessions/<id>`: its sessions and tunnels end with it).
 */
import { api } from '../../../api/client.js';
import { quoted } from '../../../api/list-query.js';
import type { ApiSession } from '../../../api/types.js';
import { ConfirmButton } from '../../../components/confirm-button.js';
import { ErrorNote, When } from '../../../components/status.js';
import { useLoad } from '../../../lib/use-load.js';

export function ApiSessionsSection({
  identityId,
  tick,
  onChanged,
}: {
  identityId: string;
  tick: number;
  onChanged: () => void;
}) {
  const sessions = useLoad(
    () =>
      api
        .get<ApiSession[]>(
          `/api-sessions?limit=100&filter=${encodeURIComponent(`identity = ${quoted(identityId)}`)}`,
        )
        .then((a) => a.data),
    [identityId, tick],
  );
  return (
    <section className="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">API sessions</h2>
      <ErrorNote error={sessions.error} />
      {sessions.value?.length === 0 && <p className="hint">Not signed in anywhere.</p>}
      {sessions.value && sessions.value.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Started</th>
              <th scope="col">Last activity</th>
              <th scope="col">From</th>
              <th scope="col">MFA</th>
              <th scope="col">
                <span className="visually-hidden">End</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.value.map((s) => (
              <tr key={s.id}>
                <td>
                  <code title={s.id}>{s.id.slice(0, 8)}</code>
                </td>
                <td>
                  <When at={s.createdAt} />
                </td>
                <td>
                  <When at={s.lastActivityAt} />
                </td>
                <td>{s.ipAddress}</td>
                <td>{s.isMfaComplete ? 'code entered' : s.isMfaRequired ? 'code owed' : 'not required'}</td>
                <td>
                  <ConfirmButton
                    label="End session"
                    question="End this session? The device is signed out and its tunnels close."
                    onConfirm={async () => {
                      await api.delete(`/api-sessions/${s.id}`);
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
