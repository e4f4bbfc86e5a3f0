/** Text the CLI prints: the services table, what a report sent, the status lines. */
import type { PostureResponse } from '../../api/posture-responses.js';
import { dateInWords, exceptionInWords, warningInWords } from '../../api/deadlines.js';
import type { FailingCheck, ServiceAccess, ServiceAccessView } from '../../api/service-access.js';
import { blockedFrom, isReachable } from '../../api/service-access.js';
import { referenceLabel } from '../../api/refusal-reference.js';
import type { AgentStatus } from '../agent.js';

const ACCESS_WORDS: Record<ServiceAccess, string> = {
  granted: 'yes',
  // Reachable until a deadline: its own word, neither "yes" nor "blocked".
  warned: 'warned',
  blocked: 'blocked',
  'mfa-needed': 'needs code',
  checking: 'checking…',
};

/** Columns padded to the widest cell; the last column is free text and not padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** A check's line, then the administrator's own advice indented under it. */
const adviceLines = (check: FailingCheck, line: string) =>
  check.remediation ? [line, `  Your administrator says: ${check.remediation}`] : [line];

/** `timeZone`: for tests; deadlines are otherwise in the user's own zone. */
export function servicesTable(services: readonly ServiceAccessView[], timeZone?: string): string {
  if (services.length === 0) return 'No services are available to this identity.';
  const rows: string[][] = [];
  for (const s of services) {
    // Deadlines first (warn mode, then exceptions): what keeps a reachable service reachable.
    const advice = [
      ...s.warnings.flatMap((w) => adviceLines(w, warningInWords(w, timeZone))),
      ...s.excepted.flatMap((e) => adviceLines(e, exceptionInWords(e, timeZone))),
      ...s.failing.flatMap((f) => adviceLines(f, f.explanation)),
      // The code to quote to the administrator, who finds the refusal's audit event by it.
      ...(s.reference ? [`${referenceLabel(s.reference)} (quote it to your administrator)`] : []),
    ];
    const [first, ...rest] = advice;
    rows.push([s.name, ACCESS_WORDS[s.access], first ?? '']);
    for (const more of rest) rows.push(['', '', more]);
  }
  return table(['SERVICE', 'ACCESS', 'WHAT TO FIX'], rows);
}

/** One readable line per posture answer, so a user can see exactly what left the machine. */
export function describeResponse(r: PostureResponse): string {
  switch (r.typeId) {
    case 'OS':
      return `OS       ${r.type} ${r.version}`;
    case 'MAC':
      return `MAC      ${r.macAddresses.join(', ') || '(none)'}`;
    case 'DOMAIN':
      return `DOMAIN   ${r.domain || '(none)'}`;
    case 'PROCESS':
      return `PROCESS  ${r.path} ${r.isRunning ? 'running' : 'not running'}${r.hash ? ` sha256 ${r.hash.slice(0, 16)}…` : ''}`;
    default: {
      // A descriptor's fact (DISK_ENCRYPTION, FIREWALL, ...): its fields as they were sent.
      const { id: _id, typeId, ...fact } = r;
      const fields = Object.entries(fact).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
      return `${typeId} ${fields.join(' ')}`;
    }
  }
}

/** `1 warned: blocked from 3 March 2027, 09:00 unless fixed`, for the earliest deadline; null when none. */
function warnedSummary(services: readonly ServiceAccessView[], timeZone?: string): string | null {
  const warned = services.filter((s) => s.access === 'warned');
  const dates = warned.map(blockedFrom).filter((d): d is string => d !== null);
  const first = dates.sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  if (!first) return null;
  return `${warned.length} warned: blocked from ${dateInWords(first, timeZone)} unless fixed`;
}

export function statusLines(
  status: AgentStatus,
  services: readonly ServiceAccessView[],
  timeZone?: string,
): string {
  const state = {
    'signed-out': 'signed out',
    'needs-totp': 'signed in, waiting for an authenticator code',
    'needs-enrollment': 'signed in, must set up an authenticator app (mfa setup)',
    active: 'signed in',
  }[status.state];
  const mfa = {
    enrolled: 'set up',
    unverified: 'setup not finished (mfa verify)',
    'not-enrolled': 'not set up',
  };
  const granted = services.filter((s) => isReachable(s.access)).length;
  const warned = warnedSummary(services, timeZone);
  const lines = [
    `controller  ${status.controllerUrl}${status.reachable === false ? ' (unreachable)' : ''}`,
    status.signInMethod === 'certificate'
      ? `identity    ${status.identityName ?? '-'} (this device's certificate)`
      : `user        ${status.username ?? '-'}${status.identityName && status.identityName !== status.username ? ` (${status.identityName})` : ''}`,
    `session     ${state}`,
    `mfa         ${status.mfa ? mfa[status.mfa] : 'unknown'}`,
  ];
  if (status.state === 'active') {
    lines.push(`services    ${granted} of ${services.length} reachable${warned ? ` (${warned})` : ''}`);
    // Each refused service with the reference to quote: `  wiki: blocked (ref 7K2Q-PX)`.
    for (const s of services.filter((s) => s.reference))
      lines.push(`  ${s.name}: ${ACCESS_WORDS[s.access]} (${referenceLabel(s.reference!)})`);
  }
  return lines.join('\n');
}
