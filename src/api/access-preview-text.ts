/**
 * An impact preview (`POST /posture-checks/preview`, `/service-policies/preview`) in words, the same in the
 * console and the admin CLI: "This blocks 37 devices from 2 services", and what the change newly grants. A
 * device is an identity with posture data (the preview compares Dial access per identity).
 */

/** The parts of a preview's answer the words are made of. */
export interface AccessPreviewFigures {
  newlyGranted: readonly { identityId: string; serviceId: string }[];
  newlyRefusedCount: number;
  newlyGrantedCount: number;
  identitiesRefused: number;
  servicesRefused: number;
}

const counted = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

export const changesNothing = (p: AccessPreviewFigures) =>
  p.newlyRefusedCount === 0 && p.newlyGrantedCount === 0;

/** Distinct identities and services of a list, "at least" when the API sent fewer items than it counted. */
function spread(items: AccessPreviewFigures['newlyGranted'], total: number) {
  const atLeast = items.length < total ? 'at least ' : '';
  return {
    devices: atLeast + counted(new Set(items.map((i) => i.identityId)).size, 'device'),
    services: atLeast + counted(new Set(items.map((i) => i.serviceId)).size, 'service'),
  };
}

export function impactHeadline(p: AccessPreviewFigures): string {
  if (changesNothing(p)) return 'This change blocks no device and grants nothing new.';
  const blocks =
    p.newlyRefusedCount > 0
      ? `This blocks ${counted(p.identitiesRefused, 'device')} from ${counted(p.servicesRefused, 'service')}`
      : '';
  if (p.newlyGrantedCount === 0) return `${blocks}.`;
  const granted = spread(p.newlyGranted, p.newlyGrantedCount);
  const grants = `${granted.devices} into ${granted.services} they cannot reach now`;
  return blocks ? `${blocks}, and lets ${grants}.` : `This lets ${grants}.`;
}
