/**
 * An audit event (docs/AUDIT.md) in plain words, the same in the console and the admin CLI: "Default Admin
 * changed service policy 'staff-payroll' (postureCheckRoles)", "Lost access to Payroll: macos-14 failed
 * (has …, needs …)". A type this version does not know still reads as its name and its details' fields.
 * Also: a reference as a person reads it over the phone, put back in the form the trail stores.
 */
import { valueText } from './value-text.js';

/** An event as `GET /audit-events` shows it. */
export interface AuditEventView {
  id: string;
  type: string;
  createdAt: string;
  actor: { id: string; name: string } | null;
  address: string | null;
  identityId: string | null;
  serviceId: string | null;
  reference: string;
  details: Record<string, unknown>;
}

/** Collections as a sentence names one of their entities. */
const ENTITY_WORDS: Record<string, string> = {
  identities: 'identity',
  services: 'service',
  'service-policies': 'service policy',
  'posture-checks': 'posture check',
  'posture-check-exceptions': 'posture check exception',
  configs: 'config',
  'config-types': 'config type',
  'edge-routers': 'edge router',
  'edge-router-policies': 'edge router policy',
  'service-edge-router-policies': 'service edge router policy',
  authenticators: 'login',
  'auth-policies': 'auth policy',
  'external-jwt-signers': 'external JWT signer',
  enrollments: 'enrollment',
  webhooks: 'webhook',
};

const METHOD_WORDS: Record<string, string> = { password: 'a password', cert: 'a certificate' };

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

const text = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** "service 'Payroll'", or the collection and id when the entity had no name. */
function entityOf(details: Record<string, unknown>): string {
  const kind = ENTITY_WORDS[text(details.entityType)] ?? (text(details.entityType) || 'entity');
  const shown = record(details.after) ?? record(details.before);
  const name = shown?.name ?? shown?.username;
  return typeof name === 'string' && name ? `${kind} '${name}'` : `${kind} ${text(details.entityId)}`.trim();
}

/** The top-level fields an update changed (timestamps aside), in the entity's order. */
function changedFields(details: Record<string, unknown>): string[] {
  const before = record(details.before) ?? {};
  const after = record(details.after) ?? {};
  return [...new Set([...Object.keys(after), ...Object.keys(before)])].filter(
    (key) => key !== 'updatedAt' && JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
}

function failingChecks(details: Record<string, unknown>): string {
  const checks = Array.isArray(details.failingChecks) ? details.failingChecks.map(record) : [];
  const words = checks
    .filter((c): c is Record<string, unknown> => c !== null)
    .map((c) => {
      const name = text(c.postureCheckName) || text(c.typeId) || 'a check';
      const has =
        c.actualValue === null || c.actualValue === undefined ? 'nothing' : valueText(c.actualValue);
      const needs =
        c.expectedValue === null || c.expectedValue === undefined ? '' : valueText(c.expectedValue);
      return needs ? `${name} failed (has ${has}, needs ${needs})` : `${name} failed`;
    });
  if (words.length) return `: ${words.join('; ')}`;
  return details.disabled ? ': the identity is disabled' : '';
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** What happened, without who did it: "changed service 'Payroll' (configs)". */
export function auditSummary(event: AuditEventView): string {
  const d = event.details ?? {};
  const service = text(d.serviceName) || 'a service';
  switch (event.type) {
    case 'admin.created':
      return `created ${entityOf(d)}`;
    case 'admin.updated': {
      const fields = changedFields(d);
      return `changed ${entityOf(d)}${fields.length ? ` (${fields.join(', ')})` : ''}`;
    }
    case 'admin.deleted':
      return `deleted ${entityOf(d)}`;
    case 'auth.signed-in':
      return `signed in with ${METHOD_WORDS[text(d.method)] ?? text(d.method)}`;
    case 'auth.sign-in-failed': {
      const who = d.username ? ` as '${text(d.username)}'` : '';
      const how = METHOD_WORDS[text(d.method)] ?? text(d.method);
      return `sign-in${who} with ${how} refused${d.reason ? ` (${text(d.reason)})` : ''}`;
    }
    case 'access.refused':
      return `lost access to ${service}${failingChecks(d)}`;
    case 'access.granted':
      return `access to ${service} restored`;
    default: {
      const fields = Object.entries(d)
        .filter(([, v]) => v !== null && typeof v !== 'object')
        .map(([k, v]) => `${k} ${text(v)}`);
      return `${event.type}${fields.length ? ` (${fields.join(', ')})` : ''}`;
    }
  }
}

/** The whole sentence: the actor, when someone acted, then what happened. */
export function auditSentence(event: AuditEventView): string {
  const summary = auditSummary(event);
  return event.actor ? `${event.actor.name} ${summary}` : capitalised(summary);
}

/** Crockford's base32 reads O as 0 and I, L as 1; the trail writes none of O, I, L, U. */
const MISHEARD: Record<string, string> = { O: '0', I: '1', L: '1' };

/**
 * A reference as typed or read out (`7k2q px`, `7K2QPX`, `ref 7K2Q-PX`) in the trail's form (`7K2Q-PX`); text
 * that is no reference comes back as typed, trimmed and upper-cased (so it simply matches nothing).
 */
export function normaliseReference(typed: string): string {
  const bare = typed
    .trim()
    .toUpperCase()
    .replace(/^REF\b/, '')
    .replace(/[\s-]/g, '')
    .replace(/[OIL]/g, (c) => MISHEARD[c]!);
  return /^[0-9A-HJKMNP-TV-Z]{6}$/.test(bare)
    ? `${bare.slice(0, 4)}-${bare.slice(4)}`
    : typed.trim().toUpperCase();
}
