/**
 * What an audit event may keep of an entity: a JSON copy (dates as ISO strings) with every field whose name
 * says it holds a secret replaced by a marker, however deep. The trail is read by more people and tools (a
 * SIEM, a webhook receiver) than the entities are, so a password, token, TOTP secret, recovery code or key
 * must never reach it, whatever collection it belongs to; the marker still shows that the field was there and
 * whether it was set.
 */
const SECRET_FIELD = /secret|passw|token|totp|recovery|jwt|privatekey|otp$/i;

export const REDACTED = '[redacted]';

export function redacted(value: unknown): unknown {
  if (value === undefined) return null;
  return scrub(JSON.parse(JSON.stringify(value)) as unknown);
}

function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>))
    out[key] = SECRET_FIELD.test(key) ? (field === null ? null : REDACTED) : scrub(field);
  return out;
}
