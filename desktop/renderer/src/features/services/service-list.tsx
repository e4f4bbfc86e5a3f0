/**
 * The identity's services with their access state; for a blocked one, each failing check in plain words
 * (src/api's explanations), and "Check again", which runs a posture cycle now. A reachable
 * service shows the local addresses the tunnel listens on for it. Services waiting only for
 * an authenticator code get one code field for all of them.
 */
import { checkInWords, type ServiceAccessView } from '../../../../../src/api/service-access.js';
import { formatCountdown } from '../../../../../src/api/prompts.js';
import type { ServiceRowView, SessionView } from '../../../../ipc/views.js';
import { modeLine } from '../../../../ipc/mode-line.js';
import { CodeForm } from '../../components/code-form.js';
import { useAction, useNow, useServices } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';
import { LocalAddresses } from './local-addresses.js';

const ACCESS_LABELS: Record<ServiceAccessView['access'], string> = {
  granted: 'Reachable',
  blocked: 'Blocked',
  'mfa-needed': 'Needs your code',
  checking: 'Checking…',
};

export function ServiceList({ session }: { session: SessionView }) {
  const view = useServices();
  const now = useNow();
  const check = useAction(postern.services.checkAgain);
  const code = useAction(postern.mfa.submitCode);
  const services = view?.services ?? [];
  const reachable = services.filter((s) => s.access === 'granted').length;
  const waiting = services.filter((s) => s.access === 'mfa-needed');
  return (
    <section aria-labelledby="services-title">
      <h1 id="services-title">Services</h1>
      <div className="toolbar">
        <p className="summary" role="status">
          {view
            ? `${reachable} of ${services.length} service${services.length === 1 ? '' : 's'} reachable`
            : 'Loading services…'}
        </p>
        {view?.updatedAt && (
          <span className="hint">Updated {new Date(view.updatedAt).toLocaleTimeString()}</span>
        )}
        <button type="button" onClick={() => void check.run()} disabled={check.busy}>
          {check.busy ? 'Checking…' : 'Check again'}
        </button>
      </div>
      {check.error && (
        <p className="error" role="alert">
          {check.error}
        </p>
      )}
      {view?.mode && (
        <p className="hint" data-testid="tunnel-mode">
          {modeLine(view.mode)}
        </p>
      )}
      {!session.reachable && (
        <p className="notice">The controller cannot be reached; this is the last known state.</p>
      )}
      {waiting.length > 0 && (
        <div className="card">
          <CodeForm
            label={`Authenticator code for ${waiting.length === 1 ? waiting[0]!.name : `${waiting.length} services`}`}
            submitLabel="Unlock"
            acceptsRecoveryCode
            busy={code.busy}
            error={code.error}
            onSubmit={(value) => code.run({ code: value })}
            clearOnSubmit
          />
        </div>
      )}
      {view && services.length === 0 && <p className="card">No services are assigned to you yet.</p>}
      <ul className="services">
        {services.map((service) => (
          <ServiceItem
            key={service.id}
            service={service}
            elapsedMs={view?.updatedAt ? now - view.updatedAt : 0}
          />
        ))}
      </ul>
    </section>
  );
}

function ServiceItem({ service, elapsedMs }: { service: ServiceRowView; elapsedMs: number }) {
  const titleId = `service-${service.id}`;
  const remaining =
    service.mfaTimeoutRemaining === null ? null : service.mfaTimeoutRemaining * 1000 - elapsedMs;
  return (
    <li className="service" aria-labelledby={titleId} data-access={service.access}>
      <header>
        <h3 id={titleId}>{service.name}</h3>
        <span className={`badge ${service.access}`}>{ACCESS_LABELS[service.access]}</span>
      </header>
      {service.failing.length > 0 && (
        <ul className="failing" aria-label={`What to do for ${service.name}`}>
          {service.failing.map((check) => (
            <li key={check.id} data-code={check.code}>
              {check.explanation}
              <span className="type">({checkInWords(check.queryType)})</span>
              {check.remediation && (
                <p className="remediation">
                  <span className="hint">Your administrator says: </span>
                  {check.remediation}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      {service.access === 'checking' && (
        <p className="hint">Checking this device against the service&apos;s policy…</p>
      )}
      {service.access === 'granted' && remaining !== null && remaining > 0 && (
        <p className="timer">Your authenticator code keeps this service for {formatCountdown(remaining)}.</p>
      )}
      {service.access === 'granted' && (
        <LocalAddresses service={service.name} addresses={service.localAddresses} />
      )}
      {service.access === 'granted' && service.carriedBy && (
        <p className="hint carrier">via {service.carriedBy}</p>
      )}
    </li>
  );
}
