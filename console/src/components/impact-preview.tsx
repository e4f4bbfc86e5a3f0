/**
 * What a change to a posture check or service policy would do, shown before it is saved: the headline ("This
 * blocks 37 devices from 2 services"), each newly refused device and service with the checks that refuse it
 * (actual against expected), the newly granted ones, then Save or back to the form.
 */
import type { AccessPreview, PreviewItem } from '../api/rollout-types.js';
import { impactHeadline } from '../../../src/api/access-preview-text.js';
import { Link } from '../lib/router.js';
import { ValueView } from './value-view.js';

/** Rows shown per list; the headline counts them all. */
const SHOWN = 200;

function ItemTable({ items, total, caption }: { items: PreviewItem[]; total: number; caption: string }) {
  const rest = total - Math.min(items.length, SHOWN);
  return (
    <>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">Service</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {items.slice(0, SHOWN).map((item) => (
            <tr key={`${item.identityId} ${item.serviceId}`}>
              <td>
                <Link to={`/identities/${item.identityId}`}>{item.identityName}</Link>
              </td>
              <td>{item.serviceName}</td>
              <td>
                {item.reasons.length === 0 && <span className="hint">the policies' roles</span>}
                <ul className="plain">
                  {item.reasons.map((r) => (
                    <li key={r.postureCheckId}>
                      <strong>{r.postureCheckName}</strong>: has <ValueView value={r.actualValue} />, needs{' '}
                      <ValueView value={r.expectedValue} />
                      {r.reason ? <span className="hint"> ({r.reason})</span> : null}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rest > 0 && <p className="hint">…and {rest.toLocaleString()} more.</p>}
    </>
  );
}

export function ImpactPreview({
  preview,
  busy,
  onConfirm,
  onDismiss,
}: {
  preview: AccessPreview;
  busy: boolean;
  onConfirm: () => void;
  onDismiss: () => void;
}) {
  return (
    <section className="impact" aria-label="Impact of this change">
      <p className="impact-headline" role="status">
        {impactHeadline(preview)}
      </p>
      {preview.newlyRefusedCount > 0 && (
        <ItemTable items={preview.newlyRefused} total={preview.newlyRefusedCount} caption="Newly refused" />
      )}
      {preview.newlyGrantedCount > 0 && (
        <ItemTable items={preview.newlyGranted} total={preview.newlyGrantedCount} caption="Newly granted" />
      )}
      <div className="actions">
        <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
          Save this change
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={onDismiss}>
          Back to the form
        </button>
      </div>
    </section>
  );
}
