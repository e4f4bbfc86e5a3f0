/** What the identity's device reported, and when (`GET /identities/<id>/posture-data`). */
import { api } from '../../../api/client.js';
import type { PostureData } from '../../../api/types.js';
import { ErrorNote, Loading, When } from '../../../components/status.js';
import { useLoad } from '../../../lib/use-load.js';

export function PostureDataSection({ identityId, tick }: { identityId: string; tick: number }) {
  const data = useLoad(
    () => api.get<PostureData>(`/identities/${identityId}/posture-data`).then((a) => a.data),
    [identityId, tick],
  );
  const d = data.value;
  const sessions = d ? Object.entries(d.apiSessionPostureData) : [];
  const reported =
    d !== null &&
    d !== undefined &&
    Boolean(d.os.lastUpdatedAt || d.mac.lastUpdatedAt || d.domain.lastUpdatedAt || d.processes.length > 0);
  return (
    <section className="card" aria-labelledby="posture-heading">
      <h2 id="posture-heading">Posture data</h2>
      <ErrorNote error={data.error} />
      {!d && !data.error && <Loading what="posture data" />}
      {d && !reported && <p className="hint">This device has not reported its posture yet.</p>}
      {d && reported && (
        <dl className="facts" data-testid="posture-data">
          <dt>Operating system</dt>
          <dd>
            {d.os.type
              ? `${d.os.type} ${d.os.version ?? ''}${d.os.build ? ` (build ${d.os.build})` : ''}`
              : '—'}{' '}
            <span className="hint">
              <When at={d.os.lastUpdatedAt} />
            </span>
          </dd>
          <dt>MAC addresses</dt>
          <dd>{d.mac.addresses?.length ? d.mac.addresses.join(', ') : '—'}</dd>
          <dt>Windows domain</dt>
          <dd>{d.domain.lastUpdatedAt ? d.domain.domain || '(none)' : '—'}</dd>
        </dl>
      )}
      {d && d.processes.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Process</th>
              <th scope="col">Running</th>
              <th scope="col">sha256</th>
              <th scope="col">Reported</th>
            </tr>
          </thead>
          <tbody>
            {d.processes.map((p) => (
              <tr key={p.path}>
                <td>
                  <code>{p.path}</code>
                </td>
                <td>{p.isRunning ? 'yes' : 'no'}</td>
                <td>
                  <code className="hash">{p.binaryHash || '—'}</code>
                </td>
                <td>
                  <When at={p.lastUpdatedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {sessions.length > 0 && (
        <>
          <h3>Per API session</h3>
          <ul className="plain">
            {sessions.map(([id, s]) => (
              <li key={id}>
                <code>{id.slice(0, 8)}</code>: MFA {s.mfa.passedMfa ? 'passed ' : 'not passed'}
                {s.mfa.passedAt && <When at={s.mfa.passedAt} />}
                {s.endpointState?.unlockedAt && (
                  <>
                    , unlocked <When at={s.endpointState.unlockedAt} />
                  </>
                )}
                {s.endpointState?.wokenAt && (
                  <>
                    , woke <When at={s.endpointState.wokenAt} />
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
