/**
 * "Why is this blocked?": pick an identity and a service, and read each policy and posture check that decides
 * it, with the result and the fix (`GET /identities/<id>/services/<serviceId>/access`). The choice is kept in
 * the address (ids only), so the answer can be linked and reloaded.
 */
import { api } from '../../api/client.js';
import type { Identity, Service, ServiceAccess } from '../../api/types.js';
import { AccessExplanation } from '../../components/access-explanation.js';
import { EntityPicker } from '../../components/entity-picker.js';
import { ErrorNote, Loading } from '../../components/status.js';
import { navigate } from '../../lib/router.js';
import { useLoad } from '../../lib/use-load.js';

const byId = <T,>(collection: string, id: string | undefined) =>
  id ? api.get<T>(`/${collection}/${id}`).then((a) => a.data) : Promise.resolve(undefined);

export function WhyBlockedPage({ identityId, serviceId }: { identityId?: string; serviceId?: string }) {
  const identity = useLoad(() => byId<Identity>('identities', identityId), [identityId]);
  const service = useLoad(() => byId<Service>('services', serviceId), [serviceId]);
  const access = useLoad(
    () =>
      identityId && serviceId
        ? api.get<ServiceAccess>(`/identities/${identityId}/services/${serviceId}/access`).then((a) => a.data)
        : Promise.resolve(undefined),
    [identityId, serviceId],
  );
  const choose = (next: { identity?: string; service?: string }) => {
    const query = new URLSearchParams();
    const i = next.identity ?? identityId;
    const s = next.service ?? serviceId;
    if (i) query.set('identity', i);
    if (s) query.set('service', s);
    navigate(`/why-blocked?${query}`, { replace: true });
  };
  return (
    <>
      <h1>Why is this blocked?</h1>
      <section className="card pickers">
        <EntityPicker<Identity>
          label="Identity"
          collection="identities"
          selected={identity.value}
          onSelect={(i) => choose({ identity: i.id })}
        />
        <EntityPicker<Service>
          label="Service"
          collection="services"
          selected={service.value}
          onSelect={(s) => choose({ service: s.id })}
        />
      </section>
      <ErrorNote error={identity.error ?? service.error ?? access.error} />
      {identityId && serviceId && !access.value && !access.error && <Loading what="the decision" />}
      {access.value && identity.value && (
        <section className="card" aria-label="Decision">
          <h2>
            {identity.value.name} → {access.value.service.name}
          </h2>
          <AccessExplanation
            access={access.value}
            identity={identity.value}
            fix={{ mfaEnrolled: identity.value.isMfaEnabled, osName: identity.value.envInfo?.os }}
          />
        </section>
      )}
    </>
  );
}
