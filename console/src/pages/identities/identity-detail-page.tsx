/**
 * One identity: who it is, its enrollment token, which services it reaches and why not, what its device
 * reported, its refused requests, its API sessions (end one) and its MFA (reset). The changing parts are
 * read again every few seconds, so a device that signs in or reports shows up without a reload.
 */
import { useEffect, useState } from 'react';
import { api } from '../../api/client.js';
import type { Identity } from '../../api/types.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { consumeCreated } from '../../lib/just-created.js';
import { Link, navigate } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';
import { ApiSessionsSection } from './sections/api-sessions-section.js';
import { EnrollmentSection } from './sections/enrollment-section.js';
import { FailedRequestsSection } from './sections/failed-requests-section.js';
import { IdentitySummary } from './sections/identity-summary.js';
import { MfaSection } from './sections/mfa-section.js';
import { PostureDataSection } from './sections/posture-data-section.js';
import { ServiceAccessSection } from './sections/service-access-section.js';
import { SignInMethodsSection } from './sections/sign-in-methods-section.js';

const REFRESH_MS = 5_000;

export function IdentityDetailPage({ id }: { id: string }) {
  const [tick, setTick] = useState(0);
  const [created] = useState(() => consumeCreated(id));
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const refresh = () => setTick((t) => t + 1);
  const identity = useLoad(() => api.get<Identity>(`/identities/${id}`).then((a) => a.data), [id, tick]);
  const value = identity.value;
  if (!value) {
    return identity.error ? <ErrorNote error={identity.error} /> : <Loading what="the identity" />;
  }
  return (
    <>
      <div className="page-title">
        <h1>{value.name}</h1>
        <button type="button" className="secondary small" onClick={refresh}>
          Refresh
        </button>
        <Link className="button" to={`/identities/${id}/timeline`}>
          What happened today
        </Link>
        {!value.isDefaultAdmin && (
          <ConfirmButton
            label="Delete identity"
            question={`Delete ${value.name}?`}
            onConfirm={async () => {
              await api.delete(`/identities/${id}?cascade=true`);
              navigate('/identities');
            }}
          />
        )}
      </div>
      {created && (
        <p className="success" role="status">
          Created the identity {value.name}.
          {value.enrollment?.ott || value.enrollment?.updb
            ? ' Send its enrollment token (below) to the device’s user.'
            : ''}
        </p>
      )}
      <IdentitySummary identity={value} />
      <EnrollmentSection identity={value} onChanged={refresh} />
      <ServiceAccessSection identity={value} tick={tick} />
      <PostureDataSection identityId={id} tick={tick} />
      <SignInMethodsSection identityId={id} identityName={value.name} tick={tick} onChanged={refresh} />
      <ApiSessionsSection identityId={id} tick={tick} onChanged={refresh} />
      <MfaSection identity={value} onChanged={refresh} />
      <FailedRequestsSection identityId={id} tick={tick} />
    </>
  );
}
