import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { ResponseSchemas } from '../helpers/openapi-check.js';

let controller: TestController;
let schemas: ResponseSchemas;
let admin: Api;
const CHECKS = `${MGMT}/posture-checks`;
const HASH = 'a'.repeat(64);
const SIGNER = 'b'.repeat(40);

beforeAll(async () => {
  controller = await startTestController();
  schemas = await ResponseSchemas.load(controller.url);
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);
});
afterAll(() => controller.dispose());

const count = async () => (await admin.get(CHECKS)).body.meta.pagination.totalCount as number;

describe('posture checks: the documented payloads of every type', () => {
  it('creates an OS check with the documented version ranges and returns it normalised', async () => {
    const res = await admin.post(CHECKS, {
      typeId: 'OS',
      name: 'os-seed',
      attributes: ['os-attr'],
      operatingSystems: [
        { type: 'WINDOWS', versions: ['>=1.2.7 <1.3.0', '1.2.7 || >=1.2.9 <2.0.0'] },
        { type: 'LINUX', versions: ['>=1.2.7'] },
        { type: 'ANDROID' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const detail = await admin.get(`${CHECKS}/${res.body.data.id}`);
    schemas.assert('GET', `${CHECKS}/{id}`, detail);
    expect(detail.body.data.operatingSystems).toEqual([
      { type: 'Windows', versions: ['>=1.2.7 <1.3.0', '1.2.7 || >=1.2.9 <2.0.0'] },
      { type: 'Linux', versions: ['>=1.2.7'] },
      { type: 'Android', versions: [] },
    ]);
    expect(detail.body.data.attributes).toEqual(['os-attr']);
    expect(detail.body.data.roleAttributes).toEqual(['os-attr']);
  });

  it('creates MAC (both notations), DOMAIN (under macAddresses or domains), PROCESS and PROCESS_MULTI (OneOf) checks', async () => {
    const mac = await admin.post(CHECKS, {
      typeId: 'MAC',
      name: 'mac-seed',
      attributes: ['a'],
      macAddresses: ['AA-BB-CC-DD-EE-FF', '00:11:22:33:44:55'],
    });
    expect(mac.status, JSON.stringify(mac.body)).toBe(201);
    expect((await admin.get(`${CHECKS}/${mac.body.data.id}`)).body.data.macAddresses).toEqual([
      'aabbccddeeff',
      '001122334455',
    ]);

    const domainSeed = await admin.post(CHECKS, {
      typeId: 'DOMAIN',
      name: 'domain-seed',
      attributes: ['a'],
      macAddresses: ['corp.example'],
    });
    expect(domainSeed.status, JSON.stringify(domainSeed.body)).toBe(201);
    expect((await admin.get(`${CHECKS}/${domainSeed.body.data.id}`)).body.data.domains).toEqual([
      'corp.example',
    ]);
    const domainZiti = await admin.post(CHECKS, { typeId: 'DOMAIN', name: 'domain-ziti', domains: ['CORP'] });
    expect(domainZiti.status).toBe(201);

    const single = await admin.post(CHECKS, {
      typeId: 'PROCESS',
      name: 'process-single',
      process: {
        osType: 'Linux',
        path: '/usr/bin/falcon-sensor',
        hashes: [HASH.toUpperCase()],
        signerFingerprint: SIGNER,
      },
    });
    expect(single.status, JSON.stringify(single.body)).toBe(201);
    expect((await admin.get(`${CHECKS}/${single.body.data.id}`)).body.data.process.hashes).toEqual([HASH]);

    const multi = await admin.post(CHECKS, {
      typeId: 'PROCESS_MULTI',
      name: 'process-seed',
      attributes: ['a'],
      semantic: 'OneOf',
      processes: [
        {
          os: 'WINDOWS',
          path: 'C:\\Program Files\\Sensor\\sensor.exe',
          hashes: [HASH],
          signerFingerprints: [SIGNER],
        },
        { osType: 'Linux', path: '/opt/sensor/bin/sensor' },
      ],
    });
    expect(multi.status, JSON.stringify(multi.body)).toBe(201);
    const stored = (await admin.get(`${CHECKS}/${multi.body.data.id}`)).body.data;
    expect(stored.semantic).toBe('AnyOf');
    expect(stored.processes[0]).toMatchObject({
      osType: 'Windows',
      hashes: [HASH],
      signerFingerprints: [SIGNER],
    });
  });

  it('creates an MFA check without a name, storing 0 and -1 timeouts as no timeout', async () => {
    const res = await admin.post(CHECKS, {
      typeId: 'MFA',
      attributes: ['mfa'],
      timeoutSeconds: 0,
      promptOnWake: true,
      promptOnUnlock: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const detail = (await admin.get(`${CHECKS}/${res.body.data.id}`)).body.data;
    expect(detail.name).toMatch(/^MFA check /);
    expect(detail).toMatchObject({ timeoutSeconds: -1, promptOnWake: true, promptOnUnlock: true });
    const patched = await admin.patch(`${CHECKS}/${res.body.data.id}`, {
      typeId: 'MFA',
      timeoutSeconds: 600,
    });
    expect(patched.status).toBe(200);
    const after = (await admin.get(`${CHECKS}/${res.body.data.id}`)).body.data;
    expect(after).toMatchObject({ timeoutSeconds: 600, promptOnWake: true, version: 2 });
  });
});

describe('posture checks: bad input is refused with the field named and nothing stored', () => {
  const cases: [string, unknown, string][] = [
    [
      'an unparseable version range',
      { typeId: 'OS', name: 'x', operatingSystems: [{ type: 'Windows', versions: ['banana'] }] },
      'operatingSystems[0].versions[0]',
    ],
    [
      'an unknown OS type',
      { typeId: 'OS', name: 'x', operatingSystems: [{ type: 'BeOS', versions: [] }] },
      'operatingSystems[0].type',
    ],
    [
      'a MAC address with the wrong shape',
      { typeId: 'MAC', name: 'x', macAddresses: ['AA-BB-CC-DD-EE-FF', 'AA-BB-CC'] },
      'macAddresses[1]',
    ],
    [
      'a non-hex MAC address',
      { typeId: 'MAC', name: 'x', macAddresses: ['GG-BB-CC-DD-EE-FF'] },
      'macAddresses[0]',
    ],
    [
      'a short sha256 hash',
      {
        typeId: 'PROCESS_MULTI',
        name: 'x',
        semantic: 'AllOf',
        processes: [{ osType: 'Linux', path: '/bin/x', hashes: ['abc'] }],
      },
      'processes[0].hashes[0]',
    ],
    [
      'a signer fingerprint that is not 40 hex',
      {
        typeId: 'PROCESS_MULTI',
        name: 'x',
        semantic: 'AllOf',
        processes: [{ osType: 'Windows', path: 'C:\\x.exe', signerFingerprints: [HASH] }],
      },
      'processes[0].signerFingerprints[0]',
    ],
    [
      'an unknown semantic',
      {
        typeId: 'PROCESS_MULTI',
        name: 'x',
        semantic: 'SomeOf',
        processes: [{ osType: 'Linux', path: '/bin/x' }],
      },
      'semantic',
    ],
    ['an unknown typeId', { typeId: 'SMELL', name: 'x' }, 'typeId'],
    ['a missing typeId', { name: 'x' }, 'typeId'],
    ['a missing name', { typeId: 'MAC', macAddresses: ['AA-BB-CC-DD-EE-FF'] }, 'name'],
    ['a number where a list belongs', { typeId: 'MAC', name: 'x', macAddresses: 42 }, 'macAddresses'],
    ['a missing list', { typeId: 'DOMAIN', name: 'x' }, 'domains'],
    ['a timeout that is not an integer', { typeId: 'MFA', timeoutSeconds: 'soon' }, 'timeoutSeconds'],
    ['attributes that are not strings', { typeId: 'MFA', attributes: [1, 2] }, 'attributes[0]'],
  ];
  it.each(cases)('%s', async (_label, body, field) => {
    const before = await count();
    const res = await admin.post(CHECKS, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('COULD_NOT_VALIDATE');
    expect(res.body.error.cause.field).toBe(field);
    schemas.assert('POST', CHECKS, res);
    expect(await count()).toBe(before);
  });

  it('malformed JSON, a non-JSON content type and an oversized body get 4xx envelopes', async () => {
    const before = await count();
    const malformed = await admin.request('POST', CHECKS, '{"typeId": "MAC",', {
      'content-type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('COULD_NOT_PARSE_BODY');
    const text = await admin.request('POST', CHECKS, 'typeId=MAC', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(text.body.error.cause.field).toBe('content-type');
    const huge = await admin.post(CHECKS, {
      typeId: 'MAC',
      name: 'huge',
      macAddresses: ['AA-BB-CC-DD-EE-FF'],
      pad: 'x'.repeat(1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error.cause.field).toBe('body');
    const array = await admin.post(CHECKS, [1, 2, 3]);
    expect(array.status).toBe(400);
    expect(await count()).toBe(before);
  });

  it('a failed update leaves the stored check as it was', async () => {
    const id = (
      await admin.post(CHECKS, {
        typeId: 'OS',
        name: 'keep-me',
        operatingSystems: [{ type: 'Linux', versions: ['>=6.8.0'] }],
      })
    ).body.data.id;
    const bad = await admin.put(`${CHECKS}/${id}`, {
      typeId: 'OS',
      name: 'keep-me',
      operatingSystems: [{ type: 'Linux', versions: ['>=6.8.0', '~~'] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.cause.field).toBe('operatingSystems[0].versions[1]');
    const typeChange = await admin.patch(`${CHECKS}/${id}`, {
      typeId: 'MAC',
      macAddresses: ['AA-BB-CC-DD-EE-FF'],
    });
    expect(typeChange.status).toBe(400);
    expect(typeChange.body.error.cause.field).toBe('typeId');
    const stored = (await admin.get(`${CHECKS}/${id}`)).body.data;
    expect(stored.operatingSystems).toEqual([{ type: 'Linux', versions: ['>=6.8.0'] }]);
    expect(stored.version).toBe(1);
  });
});
