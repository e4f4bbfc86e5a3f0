/** Refused session requests as the API records them: when, who, which service, and each failing check. */
import type { FailedServiceRequest } from '../api/types.js';
import { Link } from '../lib/router.js';
import { When } from './status.js';
import { ValueView } from './value-view.js';

export function FailureList({
  records,
  showIdentity = false,
  identityId,
}: {
  records: FailedServiceRequest[];
  showIdentity?: boolean;
  /** whose records these are, when the records do not say (one identity's list) */
  identityId?: string;
}) {
  return (
    <table className="failures">
      <thead>
        <tr>
          <th scope="col">When</th>
          {showIdentity && <th scope="col">Identity</th>}
          <th scope="col">Service</th>
          <th scope="col">Failing check</th>
          <th scope="col">Actual</th>
          <th scope="col">Expected</th>
        </tr>
      </thead>
      <tbody>
        {records.flatMap((record, r) => {
          const checks = record.policyFailures.flatMap((p) =>
            p.checks.map((check) => ({ policy: p.policyName, check })),
          );
          const key = `${record.when}-${record.serviceId}-${r}`;
          const whose = record.identityId ?? identityId ?? '';
          if (checks.length === 0) checks.push({ policy: '', check: undefined as never });
          return checks.map(({ policy, check }, i) => (
            <tr key={`${key}-${i}`}>
              <td>{i === 0 && <When at={record.when} />}</td>
              {showIdentity && (
                <td>
                  {i === 0 && record.identityId && (
                    <Link to={`/identities/${record.identityId}`}>
                      {record.identity?.name ?? record.identityId}
                    </Link>
                  )}
                </td>
              )}
              <td>
                {i === 0 && (
                  <Link
                    to={`/why-blocked?identity=${encodeURIComponent(whose)}&service=${encodeURIComponent(record.serviceId)}`}
                  >
                    {record.serviceName}
                  </Link>
                )}
              </td>
              <td>
                {check ? (
                  <>
                    {check.postureCheckName} <span className="hint">({check.postureCheckType})</span>
                    {policy && <div className="hint">policy {policy}</div>}
                    {check.reason && <div className="hint">{check.reason}</div>}
                  </>
                ) : (
                  <span className="hint">no policy passes</span>
                )}
              </td>
              <td>{check && <ValueView value={check.actualValue} />}</td>
              <td>{check && <ValueView value={check.expectedValue} />}</td>
            </tr>
          ));
        })}
      </tbody>
    </table>
  );
}
