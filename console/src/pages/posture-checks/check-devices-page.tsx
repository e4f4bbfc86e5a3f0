/**
 * One posture check's devices: every identity the check applies to through its policies, with its latest
 * recorded state (passing, would fail under report-only, warned, excepted, failing), what it reported against
 * what the check wants, and since when. Filtered by state through the API (`state = "would-fail"`).
 */
import { useState } from 'react';
import { api } from '../../api/client.js';
import { quoted, simplePage } from '../../api/list-query.js';
import { DEVICE_STATES, type CheckDevice, type DeviceState } from '../../api/rollout-types.js';
import type { PostureCheck } from '../../api/types.js';
import { Pager } from '../../components/data-table.js';
import { SelectField } from '../../components/fields.js';
import { ErrorNote, Loading, When } from '../../components/status.js';
import { ValueView } from '../../components/value-view.js';
import { Link, navigate } from '../../lib/router.js';
import { PAGE_SIZE } from '../../lib/use-list.js';
import { useLoad } from '../../lib/use-load.js';
import { enforcementText } from './enforcement/enforcement-state.js';
import { STATE_WORDS, StateBadge } from './check-states.js';

export function CheckDevicesPage({ id, state }: { id: string; state: DeviceState | undefined }) {
  const [offset, setOffset] = useState(0);
  const check = useLoad(() => api.get<PostureCheck>(`/posture-checks/${id}`).then((a) => a.data), [id]);
  const filter = state ? `?filter=${encodeURIComponent(`state = ${quoted(state)}`)}` : '';
  const devices = useLoad(
    () => simplePage<CheckDevice>(`/posture-checks/${id}/devices${filter}`, offset, PAGE_SIZE),
    [id, filter, offset],
  );
  const rows = devices.value?.items ?? [];
  return (
    <>
      <div className="page-title">
        <h1>Devices of {check.value?.name ?? 'the check'}</h1>
        <Link to={`/posture-checks/${id}`}>Edit the check</Link>
      </div>
      {check.value && <p className="hint">{enforcementText(check.value.enforcement)}.</p>}
      <div className="filters">
        <SelectField
          label="State"
          name="state-filter"
          value={state ?? ''}
          options={[
            { value: '', label: 'Every state' },
            ...DEVICE_STATES.map((s) => ({ value: s, label: STATE_WORDS[s] })),
          ]}
          onChange={(next) => {
            setOffset(0);
            navigate(`/posture-checks/${id}/devices${next ? `?state=${next}` : ''}`, { replace: true });
          }}
        />
      </div>
      <ErrorNote error={devices.error} />
      {!devices.value && !devices.error && <Loading what="the devices" />}
      {devices.value && (
        <div className="list">
          <table aria-busy={devices.loading}>
            <caption className="visually-hidden">Devices</caption>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">State</th>
                <th scope="col">Has</th>
                <th scope="col">Needs</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.identityId}>
                  <td>
                    <Link to={`/identities/${d.identityId}`}>{d.identityName}</Link>
                  </td>
                  <td>
                    <StateBadge state={d.state} />
                    {d.reason && <div className="hint">{d.reason}</div>}
                  </td>
                  <td>
                    <ValueView value={d.actualValue} />
                  </td>
                  <td>
                    <ValueView value={d.expectedValue} />
                  </td>
                  <td>
                    <When at={d.since} />
                  </td>
                </tr>
              ))}
              {rows.length === 0 && (
                <tr>
                  <td colSpan={5} className="hint">
                    No device {state ? `is ${STATE_WORDS[state]}` : 'has reported for this check yet'}.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
          <Pager list={{ offset, limit: PAGE_SIZE, setOffset }} total={devices.value.totalCount} />
        </div>
      )}
    </>
  );
}
