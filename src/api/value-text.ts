/**
 * Posture values (what a device reported, what a check wants) as people read them, the same in the console and
 * the admin CLI: `type: Linux, versions: >=99.0.0`, keys and values without JSON's quotes and brackets.
 */
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
