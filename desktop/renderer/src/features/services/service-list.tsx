/**
 * The identity's services with their access state; for a blocked one, each failing check in plain words
 * (src/api's explanations), and "Check again", which runs a posture cycle now. A reachable
 * service shows the local addresses the tunnel listens on for it. Services waiting only for
 * an authenticator code get one code field for all of them. A service kept only by warn mode says from
 * when it will be blocked and what to fix before then; one kept by an exception says until when.
 */
import { dateInWords } from '../../../../../src/api/deadlines.js';
import {
  blockedFrom,
  checkInWords,
  isReachable,
  type FailingCheck,
  type ServiceAccessView,
} from '../../../../../src/api/service-access.js';
import { formatCountdown } from '../../../../../src/api/prompts.js';
import { referenceLabel } from '../../../../../src/api/refusal-reference.js';
import type { ServiceRowView, SessionView } from '../../../../ipc/views.js';
import { modeLine } from '../../../../ipc/mode-line.js';
import { CodeForm } from '../../components/code-form.js';
import { useAction, useNow, useServices } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';
import { LocalAddresses } from './local-addresses.js';

const ACCESS_LABELS: Record<ServiceAccessView['access'], string> = {
  granted: 'Reachable',
  warned: 'Action needed',
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
  const reachable = services.filter((s) => isReachable(s.access)).length;
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

/** Each check in plain words, its type, and the administrator's own advice. */
function CheckList({ label, checks }: { label: string; checks: FailingCheck[] }) {
  return (
    <ul className="failing" aria-label={label}>
      {checks.map((check) => (
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
  );
}

/** What a reachable service owes: the warn-mode deadline and its fixes, an exception's end and its fixes. */
function Deadlines({ service }: { service: ServiceRowView }) {
  const from = blockedFrom(service);
  return (
    <>
      {service.access === 'warned' && from && (
        <div className="deadline" role="note">
          <p>
            <strong>Will be blocked from {dateInWords(from)}</strong> unless this device is fixed:
          </p>
          <CheckList
            label={`What to fix for ${service.name} before the deadline`}
            checks={service.warnings}
          />
        </div>
      )}
      {service.exceptionUntil && (
        <div className="exception" role="note">
          <p>
            <strong>Exception until {dateInWords(service.exceptionUntil)}</strong>
            {service.excepted.length > 0 && ': your administrator let this device in; fix this before then'}
          </p>
          {service.excepted.length > 0 && (
            <CheckList
              label={`What to fix for ${service.name} before the exception ends`}
              checks={service.excepted}
            />
          )}
        </div>
      )}
    </>
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
        <CheckList label={`What to do for ${service.name}`} checks={service.failing} />
      )}
      {service.reference && (
        <p className="hint reference" data-testid="refusal-reference">
          Asking your administrator? Quote <strong>{referenceLabel(service.reference)}</strong>.
        </p>
      )}
      {isReachable(service.access) && <Deadlines service={service} />}
      {service.access === 'checking' && (
        <p className="hint">Checking this device against the service&apos;s policy…</p>
      )}
      {isReachable(service.access) && remaining !== null && remaining > 0 && (
        <p className="timer">Your authenticator code keeps this service for {formatCountdown(remaining)}.</p>
      )}
      {isReachable(service.access) && (
        <LocalAddresses service={service.name} addresses={service.localAddresses} />
      )}
      {service.access === 'granted' && service.carriedBy && (
        <p className="hint carrier">via {service.carriedBy}</p>
      )}
    </li>
  );
}
