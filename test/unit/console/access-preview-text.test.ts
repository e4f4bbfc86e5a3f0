/** The impact preview's headline: the devices and services a change blocks, what it newly grants, or nothing. */
import { describe, expect, it } from 'vitest';
import type { AccessPreview, PreviewItem } from '../../../console/src/api/rollout-types.js';
import { changesNothing, impactHeadline } from '../../../src/api/access-preview-text.js';

const item = (identityId: string, serviceId: string): PreviewItem => ({
  identityId,
  identityName: identityId,
  serviceId,
  serviceName: serviceId,
  reasons: [],
});

const preview = (refused: PreviewItem[], granted: PreviewItem[], counts: Partial<AccessPreview> = {}) => ({
  newlyRefused: refused,
  newlyGranted: granted,
  newlyRefusedCount: refused.length,
  newlyGrantedCount: granted.length,
  identitiesRefused: new Set(refused.map((i) => i.identityId)).size,
  servicesRefused: new Set(refused.map((i) => i.serviceId)).size,
  ...counts,
});

describe('impact headline', () => {
  it('says when a change alters nobody’s access', () => {
    const none = preview([], []);
    expect(changesNothing(none)).toBe(true);
    expect(impactHeadline(none)).toBe('This change blocks no device and grants nothing new.');
  });

  it('counts the devices and services blocked from the API’s figures', () => {
    const p = preview([item('a', 's1')], [], {
      identitiesRefused: 37,
      servicesRefused: 2,
      newlyRefusedCount: 60,
    });
    expect(changesNothing(p)).toBe(false);
    expect(impactHeadline(p)).toBe('This blocks 37 devices from 2 services.');
    expect(impactHeadline(preview([item('a', 's1')], []))).toBe('This blocks 1 device from 1 service.');
  });

  it('adds what the change newly grants, "at least" when the list was cut short', () => {
    const both = preview([item('a', 's1')], [item('b', 's1'), item('b', 's2'), item('c', 's2')]);
    expect(impactHeadline(both)).toBe(
      'This blocks 1 device from 1 service, and lets 2 devices into 2 services they cannot reach now.',
    );
    const cut = preview([], [item('b', 's1')], { newlyGrantedCount: 500 });
    expect(impactHeadline(cut)).toBe(
      'This lets at least 1 device into at least 1 service they cannot reach now.',
    );
  });
});
