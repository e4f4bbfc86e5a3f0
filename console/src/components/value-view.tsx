/** Posture values (what a device reported, what a check wants) and policy roles, as people read them. */
import { valueText } from '../../../src/api/value-text.js';

export function ValueView({ value }: { value: unknown }) {
  // The exact JSON stays one hover away.
  return (
    <code className="value" title={JSON.stringify(value)}>
      {valueText(value)}
    </code>
  );
}

/** Role lists as the policy shows them: `#attribute`, `@name` (the API's display names for `@id`), `#all`. */
export function RolesView({
  roles,
  display,
}: {
  roles: string[];
  display?: { role: string; name: string }[];
}) {
  if (roles.length === 0) return <span className="hint">none</span>;
  return (
    <span className="roles">
      {roles.map((role, i) => (
        <code key={role}>{display?.[i]?.name ?? role}</code>
      ))}
    </span>
  );
}
