/**
 * The services the identity's policies reach and, for each refused one, the failing checks with the actual
 * and expected values and the fix (`GET /identities/<id>/service-access`); "Why?" opens the full explanation.
 */
import { api } from '../../../api/client.js';
import type { Identity, ServiceAccess } from '../../../api/types.js';
import { Badge, ErrorNote, Loading } from '../../../components/status.js';
import { ValueView } from '../../../components/value-view.js';
import { fixForCheck } from '../../../lib/explain.js';
import { Link } from '../../../lib/router.js';
import { useLoad } from '../../../lib/use-load.js';

function DialBadge({ granted }: { granted: boolean | null }) {
  if (granted === null) return <span className="hint">—</span>;
  return <Badge tone={granted ? 'granted' : 'blocked'}>{granted ? 'granted' : 'refused'}</Badge>;
}

export function ServiceAccessSection({ identity, tick }: { identity: Identity; tick: number }) {
  const access = useLoad(
    () => api.get<ServiceAccess[]>(`/identities/${identity.id}/service-access?limit=500`).then((a) => a.data),
    [identity.id, tick],
  );
  const fix = { mfaEnrolled: identity.isMfaEnabled, osName: identity.envInfo?.os };
  return (
    <section className="card" aria-labelledby="access-heading">
      <h2 id="access-heading">Services</h2>
      <ErrorNote error={access.error} />
      {!access.value && !access.error && <Loading what="services" />}
      {access.value?.length === 0 && <p className="hint">No service policy selects this identity.</p>}
      {access.value && access.value.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Dial</th>
              <th scope="col">Bind</th>
              <th scope="col">Failing checks: actual → expected, and the fix</th>
              <th scope="col">
                <span className="visually-hidden">Explain</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {access.value.map((a) => {
              const failing = a.granted.Dial === false || a.granted.Bind === false;
              const checks = failing
                ? a.policies.flatMap((p) => p.postureChecks.filter((c) => !c.isPassing))
                : [];
              return (
                <tr key={a.service.id} data-service={a.service.name}>
                  <td>
                    <Link to={`/services/${a.service.id}`}>{a.service.name}</Link>
                  </td>
                  <td>
                    <DialBadge granted={a.granted.Dial} />
                  </td>
                  <td>
                    <DialBadge granted={a.granted.Bind} />
                  </td>
                  <td>
                    <ul className="plain">
                      {checks.map((c) => (
                        <li key={c.id}>
                          <strong>{c.name}</strong>: <ValueView value={c.actualValue} /> →{' '}
                          <ValueView value={c.expectedValue} />
                          <div>{fixForCheck(c, fix)}</div>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <Link to={`/why-blocked?identity=${identity.id}&service=${a.service.id}`}>Why?</Link>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
