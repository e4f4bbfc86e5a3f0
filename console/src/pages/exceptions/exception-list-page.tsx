/**
 * Exceptions from posture checks: whom each covers, from which check (or every one), until when, why, and
 * who granted it; expired ones stay listed as a record. Delete ends one at once (asked first).
 */
import { useState } from 'react';
import { api } from '../../api/client.js';
import { simplePage } from '../../api/list-query.js';
import type { PostureCheckException } from '../../api/rollout-types.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { Pager } from '../../components/data-table.js';
import { ErrorNote, Loading, When } from '../../components/status.js';
import { Link } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';
import { useNames } from '../../lib/use-names.js';
import { PAGE_SIZE } from '../../lib/use-list.js';
import { ExceptionCheck, ExceptionState, ExceptionTarget } from './exception-views.js';

export const EXCEPTIONS = 'posture-check-exceptions';

export function ExceptionListPage() {
  const [offset, setOffset] = useState(0);
  const page = useLoad(
    () => simplePage<PostureCheckException>(`/${EXCEPTIONS}`, offset, PAGE_SIZE),
    [offset],
  );
  const rows = page.value?.items ?? [];
  const total = page.value?.totalCount ?? 0;
  const identityNames = useNames(
    'identities',
    rows.map((e) => e.identityId),
  );
  const checkNames = useNames(
    'posture-checks',
    rows.map((e) => e.postureCheckId),
  );
  return (
    <>
      <div className="page-title">
        <h1>Exceptions from posture checks</h1>
        <Link className="button" to={`/${EXCEPTIONS}/new`}>
          New exception
        </Link>
      </div>
      <p className="hint">
        While an exception is active, the checks it names count as passed for the identities it covers, and
        their users see until when. At its expiry the decision is made again, on time.
      </p>
      <ErrorNote error={page.error} />
      {!page.value && !page.error && <Loading what="the exceptions" />}
      {page.value && (
        <div className="list">
          <table aria-busy={page.loading}>
            <caption className="visually-hidden">Exceptions</caption>
            <thead>
              <tr>
                <th scope="col">For</th>
                <th scope="col">From</th>
                <th scope="col">Expires</th>
                <th scope="col">State</th>
                <th scope="col">Reason</th>
                <th scope="col">Granted by</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((exception) => (
                <tr key={exception.id}>
                  <td>
                    <ExceptionTarget exception={exception} identityNames={identityNames} />
                  </td>
                  <td>
                    <ExceptionCheck exception={exception} checkNames={checkNames} />
                  </td>
                  <td>
                    <Link to={`/${EXCEPTIONS}/${exception.id}`}>
                      <When at={exception.expiresAt} />
                    </Link>
                  </td>
                  <td>
                    <ExceptionState exception={exception} />
                  </td>
                  <td>{exception.reason}</td>
                  <td>{exception.grantedBy?.name ?? <span className="hint">unknown</span>}</td>
                  <td>
                    <ConfirmButton
                      label="Delete"
                      question="End this exception now?"
                      onConfirm={async () => {
                        await api.delete(`/${EXCEPTIONS}/${exception.id}`);
                        page.reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
              {rows.length === 0 && (
                <tr>
                  <td colSpan={7} className="hint">
                    No exceptions.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
          <Pager list={{ offset, limit: PAGE_SIZE, setOffset }} total={total} />
        </div>
      )}
    </>
  );
}
