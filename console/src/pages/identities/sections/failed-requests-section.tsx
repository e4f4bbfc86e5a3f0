/** The identity's refused session requests, newest first (`GET /identities/<id>/failed-service-requests`). */
import { api } from '../../../api/client.js';
import type { FailedServiceRequest } from '../../../api/types.js';
import { FailureList } from '../../../components/failure-list.js';
import { ErrorNote } from '../../../components/status.js';
import { useLoad } from '../../../lib/use-load.js';

export function FailedRequestsSection({ identityId, tick }: { identityId: string; tick: number }) {
  const records = useLoad(
    () =>
      api
        .get<FailedServiceRequest[]>(`/identities/${identityId}/failed-service-requests`)
        .then((a) => [...a.data].reverse()),
    [identityId, tick],
  );
  return (
    <section className="card" aria-labelledby="failures-heading">
      <h2 id="failures-heading">Refused requests</h2>
      <ErrorNote error={records.error} />
      {records.value?.length === 0 && <p className="hint">None.</p>}
      {records.value && records.value.length > 0 && (
        <FailureList records={records.value} identityId={identityId} />
      )}
    </section>
  );
}
