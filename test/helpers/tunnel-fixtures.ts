/** A service as the agent's service list reads it: dialable, intercepting `<name>.internal:<port>`. */
import { INTERCEPT_V1 } from '../../src/api/data-plane.js';
import type { ServiceDetail } from '../../src/api/services.js';

export function interceptedService(port: number, name = 'crm'): ServiceDetail {
  return {
    id: `svc-${name}-${port}`,
    name,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    permissions: ['Dial'],
    postureQueries: [],
    config: {
      [INTERCEPT_V1]: {
        protocols: ['tcp'],
        addresses: [`${name}.internal`],
        portRanges: [{ low: port, high: port }],
      },
    },
  };
}
