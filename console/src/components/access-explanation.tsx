/**
 * One identity's access to one service, in full: the verdict, then each policy selecting both with each of its
 * posture checks, the result, the actual and expected values and the fix in words; and the service's other
 * policies that do not select the identity.
 */
import type { Identity, ServiceAccess } from '../api/types.js';
import { fixForCheck, verdictOf, type FixContext } from '../lib/explain.js';
import { Link } from '../lib/router.js';
import { Badge } from './status.js';
import { RolesView, ValueView } from './value-view.js';

export function AccessExplanation({
  access,
  identity,
  fix,
}: {
  access: ServiceAccess;
  identity: Identity;
  fix: FixContext;
}) {
  const verdict = verdictOf(access, identity);
  return (
    <div className="explanation">
      <p className={verdict.granted ? 'success' : 'error'} role="status">
        <strong>{verdict.granted ? 'Granted' : 'Refused'}</strong> — {verdict.words}
      </p>
      {access.apiSessionId === null && (
        <p className="hint">
          {identity.name} has no API session: checks are evaluated as for a new sign-in (no authenticator code
          entered yet).
        </p>
      )}
      {access.policies.map((policy) => (
        <section key={policy.id} className="policy" aria-label={`Policy ${policy.name}`}>
          <h3>
            <Link to={`/service-policies/${policy.id}`}>{policy.name}</Link>{' '}
            <span className="hint">
              {policy.type}, {policy.semantic}
            </span>{' '}
            <Badge tone={policy.isPassing ? 'granted' : 'blocked'}>
              {policy.isPassing ? 'passes' : 'fails'}
            </Badge>
          </h3>
          {policy.postureChecks.length === 0 ? (
            <p className="hint">No posture checks: this policy always passes.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Result</th>
                  <th scope="col">Actual</th>
                  <th scope="col">Expected</th>
                  <th scope="col">Fix</th>
                </tr>
              </thead>
              <tbody>
                {policy.postureChecks.map((check) => (
                  <tr key={check.id}>
                    <td>
                      <Link to={`/posture-checks/${check.id}`}>{check.name}</Link>{' '}
                      <span className="hint">({check.typeId})</span>
                    </td>
                    <td>
                      <Badge tone={check.isPassing ? 'granted' : 'blocked'}>
                        {check.isPassing ? 'pass' : 'fail'}
                      </Badge>
                      {check.failure && <div className="hint">{check.failure.code}</div>}
                    </td>
                    <td>
                      <ValueView value={check.actualValue} />
                    </td>
                    <td>
                      <ValueView value={check.expectedValue} />
                    </td>
                    <td>
                      {fixForCheck(check, fix)}
                      {check.remediation && !check.isPassing && (
                        <div className="hint">Administrator’s advice: {check.remediation}</div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      ))}
      {(access.otherPolicies ?? []).length > 0 && (
        <section className="policy">
          <h3>Policies of this service that do not select {identity.name}</h3>
          <ul>
            {access.otherPolicies!.map((p) => (
              <li key={p.id}>
                <Link to={`/service-policies/${p.id}`}>{p.name}</Link> ({p.type}) selects{' '}
                <RolesView roles={p.identityRoles} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
