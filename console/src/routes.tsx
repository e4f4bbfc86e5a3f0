/** Which page a console URL shows: `/<section>`, `/<section>/new`, `/<section>/<id>`. */
import type { Route } from './lib/router.js';
import { DEVICE_STATES, type DeviceState } from './api/rollout-types.js';
import { AuditEventPage } from './pages/audit/audit-event-page.js';
import { AuditListPage } from './pages/audit/audit-list-page.js';
import { IdentityTimelinePage } from './pages/audit/identity-timeline-page.js';
import { ConfigFormPage } from './pages/configs/config-form-page.js';
import { ConfigListPage } from './pages/configs/config-list-page.js';
import { RouterDetailPage } from './pages/edge-routers/router-detail-page.js';
import { RouterListPage } from './pages/edge-routers/router-list-page.js';
import { ExceptionCreatePage } from './pages/exceptions/exception-create-page.js';
import { ExceptionDetailPage } from './pages/exceptions/exception-detail-page.js';
import { ExceptionListPage } from './pages/exceptions/exception-list-page.js';
import { IdentityCreatePage } from './pages/identities/identity-create-page.js';
import { IdentityDetailPage } from './pages/identities/identity-detail-page.js';
import { IdentityListPage } from './pages/identities/identity-list-page.js';
import { OverviewPage } from './pages/overview/overview-page.js';
import { CheckDevicesPage } from './pages/posture-checks/check-devices-page.js';
import { CheckFormPage } from './pages/posture-checks/check-form-page.js';
import { CheckListPage } from './pages/posture-checks/check-list-page.js';
import { PolicyFormPage } from './pages/service-policies/policy-form-page.js';
import { PolicyListPage } from './pages/service-policies/policy-list-page.js';
import { ServiceFormPage } from './pages/services/service-form-page.js';
import { ServiceListPage } from './pages/services/service-list-page.js';
import { WebhookFormPage } from './pages/webhooks/webhook-form-page.js';
import { WebhookListPage } from './pages/webhooks/webhook-list-page.js';
import { WhyBlockedPage } from './pages/why-blocked/why-blocked-page.js';

export function PageFor({ route }: { route: Route }) {
  const [section, id, part] = route.segments;
  const existing = id === 'new' ? undefined : id;
  switch (section) {
    case undefined:
      return <OverviewPage />;
    case 'identities':
      if (id === undefined) return <IdentityListPage />;
      if (id !== 'new' && part === 'timeline')
        return <IdentityTimelinePage key={id} id={id} day={route.query.get('day')} />;
      return id === 'new' ? <IdentityCreatePage /> : <IdentityDetailPage key={id} id={id} />;
    case 'services':
      return id === undefined ? <ServiceListPage /> : <ServiceFormPage key={id} id={existing} />;
    case 'configs':
      return id === undefined ? <ConfigListPage /> : <ConfigFormPage key={id} id={existing} />;
    case 'service-policies':
      return id === undefined ? <PolicyListPage /> : <PolicyFormPage key={id} id={existing} />;
    case 'posture-checks':
      if (id === undefined) return <CheckListPage />;
      if (existing && part === 'devices')
        return <CheckDevicesPage key={id} id={existing} state={deviceState(route.query.get('state'))} />;
      return <CheckFormPage key={id} id={existing} />;
    case 'posture-check-exceptions':
      if (id === undefined) return <ExceptionListPage />;
      return id === 'new' ? <ExceptionCreatePage /> : <ExceptionDetailPage key={id} id={id} />;
    case 'edge-routers':
      return id === undefined ? <RouterListPage /> : <RouterDetailPage key={id} id={existing} />;
    case 'webhooks':
      return id === undefined ? <WebhookListPage /> : <WebhookFormPage key={id} id={existing} />;
    case 'audit':
      return id === undefined ? <AuditListPage query={route.query} /> : <AuditEventPage key={id} id={id} />;
    case 'why-blocked':
      return (
        <WhyBlockedPage
          identityId={route.query.get('identity') ?? undefined}
          serviceId={route.query.get('service') ?? undefined}
        />
      );
    default:
      return (
        <section className="card">
          <h1>Not found</h1>
          <p>There is no page at this address.</p>
        </section>
      );
  }
}

const deviceState = (text: string | null): DeviceState | undefined =>
  DEVICE_STATES.find((state) => state === text);
