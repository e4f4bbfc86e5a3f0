/**
 * Each API describes itself where OpenZiti's clients look (`/edge/<api>/v1/swagger.json`): its own paths,
 * relative to its base URL, with one schema per `typeId` for posture checks and posture responses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
beforeAll(async () => (tc = await startTestController()));
afterAll(() => tc?.dispose());

const fetchDoc = async (path: string) => {
  const res = await fetch(`${tc.url}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as {
    servers: { url: string }[];
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: any }> } }>>;
  };
};

describe('per-API OpenAPI documents', () => {
  it('the client API describes its event stream with its text/event-stream answer', async () => {
    const doc = (await fetchDoc('/edge/client/v1/swagger.json')) as any;
    const ok = doc.paths['/current-api-session/events'].get.responses['200'];
    expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
    expect(ok.description).toContain('service-updates');
  });

  it('the client API: its own paths, relative to /edge/client/v1, needing no session', async () => {
    const doc = await fetchDoc('/edge/client/v1/swagger.json');
    expect(doc.servers[0]!.url).toBe('/edge/client/v1');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/authenticate', '/services', '/posture-response']),
    );
    expect(doc.paths['/identities']).toBeUndefined();
    const bulk = doc.paths['/posture-response-bulk']!.post!.requestBody!.content['application/json']!.schema;
    expect(bulk.items.oneOf.map((s: { title: string }) => s.title)).toEqual([
      'postureResponseOS',
      'postureResponseMAC',
      'postureResponseDOMAIN',
      'postureResponsePROCESS',
      'postureResponseENDPOINT_STATE',
      'postureResponseDISK_ENCRYPTION',
      'postureResponseFIREWALL',
      'postureResponseSCREEN_LOCK',
    ]);
  });

  it('the management API: one schema per posture check type', async () => {
    const doc = await fetchDoc('/edge/management/v1/swagger.json');
    expect(doc.servers[0]!.url).toBe('/edge/management/v1');
    expect(doc.paths['/services']).toBeDefined();
    expect(doc.paths['/posture-response']).toBeUndefined();
    for (const [path, method] of [
      ['/posture-checks', 'post'],
      ['/posture-checks/{id}', 'put'],
    ] as const) {
      const schema = doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;
      expect(schema.discriminator).toEqual({ propertyName: 'typeId' });
      expect(
        schema.oneOf.map((s: { properties: { typeId: { const: string } } }) => s.properties.typeId.const),
      ).toEqual([
        'OS',
        'MAC',
        'DOMAIN',
        'PROCESS',
        'PROCESS_MULTI',
        'MFA',
        'DISK_ENCRYPTION',
        'FIREWALL',
        'SCREEN_LOCK',
        'AGENT_VERSION',
      ]);
    }
    const os = doc.paths['/posture-checks']!.post!.requestBody!.content['application/json']!.schema.oneOf[0];
    expect(Object.keys(os.properties)).toContain('operatingSystems');
  });
});
