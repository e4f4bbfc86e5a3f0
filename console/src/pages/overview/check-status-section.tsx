/**
 * The overview's posture checks: for each check, how it is enforced and how many devices pass it, would fail
 * it (report only), are warned, excepted or failing (`GET /posture-check-status`); each figure opens that
 * check's devices in that state.
 */
import { api } from '../../api/client.js';
import type { CheckStatus, DeviceState } from '../../api/rollout-types.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { Link } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';
import { enforcementText } from '../posture-checks/enforcement/enforcement-state.js';

const COLUMNS: { label: string; count: keyof CheckStatus['counts']; state: DeviceState; tone?: string }[] = [
  { label: 'Passing', count: 'passing', state: 'passing', tone: 'ok-text' },
  { label: 'Would fail', count: 'wouldFail', state: 'would-fail' },
  { label: 'Warned', count: 'warned', state: 'warned' },
  { label: 'Excepted', count: 'excepted', state: 'excepted' },
  { label: 'Failing', count: 'failing', state: 'failing', tone: 'bad-text' },
];

export function CheckStatusSection() {
  const status = useLoad(() => api.get<CheckStatus[]>('/posture-check-status').then((a) => a.data), []);
  return (
    <section className="card" aria-label="Posture checks">
      <h2>Posture checks, by device</h2>
      <ErrorNote error={status.error} />
      {!status.value && !status.error && <Loading what="the checks" />}
      {status.value && status.value.length === 0 && <p className="hint">No posture checks yet.</p>}
      {status.value && status.value.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Enforcement</th>
              {COLUMNS.map((c) => (
                <th key={c.count} scope="col">
                  {c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {status.value.map((check) => (
              <tr key={check.postureCheckId}>
                <td>
                  <Link to={`/posture-checks/${check.postureCheckId}/devices`}>{check.name}</Link>
                </td>
                <td>{enforcementText(check.enforcement)}</td>
                {COLUMNS.map((c) => {
                  const n = check.counts[c.count];
                  return (
                    <td key={c.count} className={n ? c.tone : undefined}>
                      {n ? (
                        <Link
                          to={`/posture-checks/${check.postureCheckId}/devices?state=${c.state}`}
                          aria-label={`${check.name}: ${n} ${c.label.toLowerCase()}`}
                        >
                          {n.toLocaleString()}
                        </Link>
                      ) : (
                        0
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
