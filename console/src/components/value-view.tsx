/** Posture values (what a device reported, what a check wants) and policy roles, as people read them. */

/** `type: Linux, versions: >=99.0.0`: keys and values without JSON's quotes and brackets. */
export function valueText(value: unknown): string {
  if (value === undefined || value === null || value === '') return 'none';
  if (Array.isArray(value)) return value.length ? value.map(valueText).join('; ') : 'none';
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const nested = (v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v) ? `{${valueText(v)}}` : valueText(v);
    return entries.map(([key, v]) => `${key}: ${nested(v)}`).join(', ');
  }
  return String(value);
}

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
