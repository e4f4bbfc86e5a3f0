/**
 * The overview: how many signed-in devices each service lets in and refuses right now, the latest refused
 * session requests, and how many identities have MFA (`GET /access-summary`, `GET /failed-service-requests`);
 * each posture check's devices by state (check-status-section.tsx).
 */
import { api } from '../../api/client.js';
import type { AccessSummary, FailedServiceRequest } from '../../api/types.js';
import { ErrorNote, Loading, When } from '../../components/status.js';
import { Link } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';
import { FailureList } from '../../components/failure-list.js';
import { CheckStatusSection } from './check-status-section.js';

const RECENT = 10;

export function OverviewPage() {
  const summary = useLoad(() => api.get<AccessSummary>('/access-summary').then((a) => a.data), []);
  const refused = useLoad(
    () => api.get<FailedServiceRequest[]>(`/failed-service-requests?limit=${RECENT}`).then((a) => a.data),
    [],
  );
  const s = summary.value;
  const share = s && s.identities > 0 ? Math.round((100 * s.mfaEnrolled) / s.identities) : 0;
  return (
    <>
      <h1>Overview</h1>
      <ErrorNote error={summary.error} />
      {!s && !summary.error && <Loading what="the overview" />}
      {s && (
        <div className="tiles">
          <div className="tile">
            <span className="tile-figure">{s.devices.toLocaleString()}</span>
            <span>signed-in devices with services</span>
          </div>
          <div className="tile">
            <span className="tile-figure">{s.identities.toLocaleString()}</span>
            <span>identities</span>
          </div>
          <div className="tile">
            <span className="tile-figure">{share}%</span>
            <span>
              enrolled in MFA ({s.mfaEnrolled.toLocaleString()} of {s.identities.toLocaleString()})
            </span>
            <meter min={0} max={100} value={share} aria-label="MFA enrolment share" />
          </div>
        </div>
      )}
      <section className="card">
        <h2>Devices per service, now</h2>
        {s && s.services.length === 0 && (
          <p className="hint">No signed-in device is selected by a Dial policy.</p>
        )}
        {s && s.services.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Service</th>
                <th scope="col">Passing</th>
                <th scope="col">Failing</th>
                <th scope="col">
                  <span className="visually-hidden">Share passing</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {s.services.map((service) => (
                <tr key={service.id}>
                  <td>
                    <Link to={`/services/${service.id}`}>{service.name}</Link>
                  </td>
                  <td className="ok-text">{service.passing}</td>
                  <td className={service.failing ? 'bad-text' : undefined}>{service.failing}</td>
                  <td>
                    <meter
                      min={0}
                      max={service.passing + service.failing}
                      value={service.passing}
                      aria-label={`${service.name}: share of devices passing`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {s && (
          <p className="hint">
            Evaluated <When at={s.evaluatedAt} />.
          </p>
        )}
      </section>
      <CheckStatusSection />
      <section className="card">
        <h2>Recently refused sessions</h2>
        <ErrorNote error={refused.error} />
        {refused.value && refused.value.length === 0 && <p className="hint">No refused session requests.</p>}
        {refused.value && refused.value.length > 0 && <FailureList records={refused.value} showIdentity />}
      </section>
    </>
  );
}
