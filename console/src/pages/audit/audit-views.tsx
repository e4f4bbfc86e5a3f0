/** Pieces of the audit pages: an event's sentence, its names as links, and what an admin change changed. */
import { auditSentence, type AuditEventView } from '../../../../src/api/audit-text.js';
import { ValueView } from '../../components/value-view.js';
import { Link } from '../../lib/router.js';

export function EventSentence({ event }: { event: AuditEventView }) {
  return <span>{auditSentence(event)}</span>;
}

/** An identity or service by name, linked to its page; its id when it no longer exists. */
export function EntityLink({
  id,
  names,
  section,
}: {
  id: string | null;
  names: ReadonlyMap<string, string>;
  section: 'identities' | 'services';
}) {
  if (!id) return <span className="hint">—</span>;
  const name = names.get(id);
  if (!name) return <code title="no longer exists">{id}</code>;
  return <Link to={`/${section}/${id}`}>{name}</Link>;
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** An admin change's fields, before and after, the changed ones first. */
export function BeforeAfter({ details }: { details: Record<string, unknown> }) {
  const before = record(details.before);
  const after = record(details.after);
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = (k: string) => JSON.stringify(before[k]) !== JSON.stringify(after[k]);
  const ordered = [...keys.filter(changed), ...keys.filter((k) => !changed(k))];
  return (
    <table aria-label="Before and after">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {ordered.map((k) => (
          <tr key={k} className={changed(k) ? 'changed' : undefined}>
            <th scope="row">
              {k}
              {changed(k) && <span className="visually-hidden"> (changed)</span>}
            </th>
            <td>{k in before ? <ValueView value={before[k]} /> : <span className="hint">—</span>}</td>
            <td>{k in after ? <ValueView value={after[k]} /> : <span className="hint">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** An access refusal's failing checks: what the device had against what the check needs. */
export function FailingChecks({ details }: { details: Record<string, unknown> }) {
  const checks = Array.isArray(details.failingChecks) ? details.failingChecks.map(record) : [];
  if (checks.length === 0) return null;
  return (
    <table aria-label="Failing checks">
      <thead>
        <tr>
          <th scope="col">Check</th>
          <th scope="col">Has</th>
          <th scope="col">Needs</th>
          <th scope="col">Reason</th>
        </tr>
      </thead>
      <tbody>
        {checks.map((c, i) => (
          <tr key={i}>
            <td>{String(c.postureCheckName ?? c.typeId ?? '')}</td>
            <td>
              <ValueView value={c.actualValue} />
            </td>
            <td>
              <ValueView value={c.expectedValue} />
            </td>
            <td>{c.reason ? <ValueView value={c.reason} /> : <span className="hint">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
