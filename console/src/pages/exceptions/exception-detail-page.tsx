/**
 * One exception: whom it covers, from which check, until when, why, who granted and last changed it, and its
 * history (every grant, change, deletion and expiry, with who did it). Delete ends it at once.
 */
import { api } from '../../api/client.js';
import type { ExceptionHistoryEntry, PostureCheckException } from '../../api/rollout-types.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { ErrorNote, Loading, When } from '../../components/status.js';
import { Link, navigate } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';
import { useNames } from '../../lib/use-names.js';
import { EXCEPTIONS } from './exception-list-page.js';
import { ExceptionCheck, ExceptionState, ExceptionTarget } from './exception-views.js';

export function ExceptionDetailPage({ id }: { id: string }) {
  const exception = useLoad(
    () => api.get<PostureCheckException>(`/${EXCEPTIONS}/${id}`).then((a) => a.data),
    [id],
  );
  const history = useLoad(
    () => api.get<ExceptionHistoryEntry[]>(`/${EXCEPTIONS}/${id}/history`).then((a) => a.data),
    [id],
  );
  const e = exception.value;
  const identityNames = useNames('identities', [e?.identityId]);
  const checkNames = useNames('posture-checks', [e?.postureCheckId]);
  if (!e) return exception.error ? <ErrorNote error={exception.error} /> : <Loading what="the exception" />;
  return (
    <>
      <section className="card">
        <h1>Exception</h1>
        <dl className="facts">
          <dt>For</dt>
          <dd>
            <ExceptionTarget exception={e} identityNames={identityNames} />
          </dd>
          <dt>From</dt>
          <dd>
            <ExceptionCheck exception={e} checkNames={checkNames} />
          </dd>
          <dt>Expires</dt>
          <dd>
            <When at={e.expiresAt} /> <ExceptionState exception={e} />
          </dd>
          <dt>Reason</dt>
          <dd>{e.reason}</dd>
          <dt>Granted by</dt>
          <dd>
            {e.grantedBy?.name ?? 'unknown'}, <When at={e.createdAt} />
          </dd>
          {e.updatedBy && (
            <>
              <dt>Last changed by</dt>
              <dd>
                {e.updatedBy.name}, <When at={e.updatedAt} />
              </dd>
            </>
          )}
        </dl>
        <div className="actions">
          <Link to={`/${EXCEPTIONS}`}>Back to the list</Link>
          <ConfirmButton
            label="Delete exception"
            question="End this exception now?"
            onConfirm={async () => {
              await api.delete(`/${EXCEPTIONS}/${id}`);
              navigate(`/${EXCEPTIONS}`);
            }}
          />
        </div>
      </section>
      <section className="card" aria-label="History">
        <h2>History</h2>
        <ErrorNote error={history.error} />
        {history.value && (
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">By</th>
                <th scope="col">Expiry then</th>
                <th scope="col">Reason then</th>
              </tr>
            </thead>
            <tbody>
              {history.value.map((entry, i) => (
                <tr key={`${entry.at} ${i}`}>
                  <td>
                    <When at={entry.at} />
                  </td>
                  <td>{entry.action}</td>
                  <td>{entry.by?.name ?? <span className="hint">the controller</span>}</td>
                  <td>
                    <When at={entry.expiresAt} />
                  </td>
                  <td>{entry.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
