/** How checks combine into policies and policies into access, and what a refusal reports. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccessResolver } from '../../../controller/access/decisions/access-resolver.js';
import { SessionEvaluation } from '../../../controller/access/decisions/session-evaluation.js';
import { failedRequest, invalidPosture } from '../../../controller/access/decisions/failure-report.js';
import { Fixture, postureData } from './fixture.js';

const NOW = new Date('2025-01-01T00:00:00.000Z');
const slot = { postureCheckId: 'x', lastUpdatedAt: NOW };

describe('SessionEvaluation', () => {
  let f: Fixture;
  beforeEach(() => {
    f = new Fixture();
  });
  afterEach(() => f.dispose());

  async function scene() {
    const identity = await f.identity(['staff']);
    const service = await f.service(['app']);
    const domain = await f.check('DOMAIN', { domains: ['corp'] }, ['base']);
    const mac = await f.check('MAC', { macAddresses: ['aa-bb-cc-dd-ee-ff'] }, ['base']);
    const strict = await f.policy({
      identityRoles: ['#staff'],
      serviceRoles: ['#app'],
      postureCheckRoles: ['#base'],
    });
    const bind = await f.policy({ type: 'Bind', identityRoles: ['#staff'], serviceRoles: ['#app'] });
    return { identity, service, domain, mac, strict, bind };
  }
  const data = postureData;

  it('passes a policy only when all its checks pass, and grants per session type', async () => {
    const { identity, service, domain, strict } = await scene();
    const onlyDomain = data({ domain: { ...slot, domain: 'CORP' } });
    const evaluation = new SessionEvaluation(
      await AccessResolver.of(f.store),
      onlyDomain,
      's',
      NOW,
      identity,
    );
    const dial = evaluation.access(identity, service, 'Dial');
    expect(dial.granted).toBe(false);
    expect(dial.outcomes.map((o) => o.policy.id)).toEqual([strict.id]);
    expect(dial.outcomes[0]!.checks.find((c) => c.check.id === domain.id)?.result.isPassing).toBe(true);
    // The Bind policy has no checks: it passes on its own.
    expect(evaluation.access(identity, service, 'Bind').granted).toBe(true);

    const both = data({ domain: { ...slot, domain: 'corp' }, mac: { ...slot, addresses: ['aabbccddeeff'] } });
    expect(
      new SessionEvaluation(await AccessResolver.of(f.store), both, 's', NOW, identity).access(
        identity,
        service,
        'Dial',
      ).granted,
    ).toBe(true);
  });

  it('reports a refusal in OpenZiti’s shapes, listing only failing policies and checks', async () => {
    const { identity, service, mac, strict } = await scene();
    const open = await f.policy({ identityRoles: ['#nobody'], serviceRoles: ['#app'] });
    const evaluation = new SessionEvaluation(
      await AccessResolver.of(f.store),
      data({ domain: { ...slot, domain: 'corp' } }),
      's',
      NOW,
      identity,
    );
    const { outcomes } = evaluation.access(identity, service, 'Dial');
    expect(outcomes.map((o) => o.policy.id)).not.toContain(open.id);

    const record = failedRequest('s', service, 'Dial', outcomes, NOW);
    expect(record).toEqual({
      apiSessionId: 's',
      serviceId: service.id,
      serviceName: service.name,
      sessionType: 'Dial',
      when: NOW,
      policyFailures: [
        {
          policyId: strict.id,
          policyName: strict.name,
          checks: [
            {
              postureCheckId: mac.id,
              postureCheckName: mac.name,
              postureCheckType: 'MAC',
              actualValue: [],
              expectedValue: ['aabbccddeeff'],
              reason: 'the device has not reported any MAC address',
              code: 'NO_DATA_YET',
            },
          ],
        },
      ],
    });
    const error = invalidPosture(outcomes);
    expect(error).toMatchObject({
      status: 409,
      code: 'INVALID_POSTURE',
      cause: {
        message: `Failed to pass posture checks for service policies: [${strict.id}]`,
        data: { [strict.id]: [{ id: mac.id, typeId: 'MAC', isPassing: false }] },
      },
    });
  });
});
