/** Text the CLI prints: the services table, what a report sent, the status lines. */
import type { PostureResponse } from '../../api/posture-responses.js';
import type { ServiceAccess, ServiceAccessView } from '../../api/service-access.js';
import type { AgentStatus } from '../agent.js';

const ACCESS_WORDS: Record<ServiceAccess, string> = {
  granted: 'yes',
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

export function servicesTable(services: readonly ServiceAccessView[]): string {
  if (services.length === 0) return 'No services are available to this identity.';
  const rows: string[][] = [];
  for (const s of services) {
    const advice = s.failing.flatMap((f) =>
      f.remediation ? [f.explanation, `  Your administrator says: ${f.remediation}`] : [f.explanation],
    );
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

export function statusLines(status: AgentStatus, services: readonly ServiceAccessView[]): string {
  const state = {
    'signed-out': 'signed out',
    'needs-totp': 'signed in, waiting for an authenticator code',
    'needs-enrollment': 'signed in, must set up an authenticator app (mfa enroll)',
    active: 'signed in',
  }[status.state];
  const mfa = {
    enrolled: 'set up',
    unverified: 'setup not finished (mfa verify)',
    'not-enrolled': 'not set up',
  };
  const granted = services.filter((s) => s.access === 'granted').length;
  const lines = [
    `controller  ${status.controllerUrl}${status.reachable === false ? ' (unreachable)' : ''}`,
    status.signInMethod === 'certificate'
      ? `identity    ${status.identityName ?? '-'} (this device's certificate)`
      : `user        ${status.username ?? '-'}${status.identityName && status.identityName !== status.username ? ` (${status.identityName})` : ''}`,
    `session     ${state}`,
    `mfa         ${status.mfa ? mfa[status.mfa] : 'unknown'}`,
  ];
  if (status.state === 'active') lines.push(`services    ${granted} of ${services.length} reachable`);
  return lines.join('\n');
}
