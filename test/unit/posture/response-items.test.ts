import { describe, expect, it } from 'vitest';
import { parseResponses, parseResponseItem } from '../../../controller/posture/response-items.js';
import type { FieldProblem } from '../../../controller/posture-model.js';

const fields = (values: unknown[], indexed = true) => {
  const parsed = parseResponses(values, indexed);
  return parsed.ok ? [] : parsed.problems.map((p) => p.field);
};

describe('posture response items', () => {
  it('parses each type into its stored form', () => {
    const parsed = parseResponses(
      [
        { id: 'o', typeId: 'OS', type: ' Windows ', version: '10.0', build: '19045' },
        {
          id: 'm',
          typeId: 'MAC',
          macAddresses: ['AA-BB-CC-DD-EE-FF', 'aa:bb:cc:dd:ee:ff', '0011.2233.4455'],
        },
        { id: 'd', typeId: 'DOMAIN', domain: '' },
        {
          id: 'p',
          typeId: 'PROCESS',
          path: '/bin/x',
          isRunning: false,
          hash: 'AB'.repeat(32),
          signerFingerprints: ['CD'.repeat(20)],
        },
        { id: 'e', typeId: 'ENDPOINT_STATE', unlocked: true },
      ],
      true,
    );
    expect(parsed).toEqual({
      ok: true,
      items: [
        { typeId: 'OS', id: 'o', type: 'Windows', version: '10.0', build: '19045' },
        { typeId: 'MAC', id: 'm', macAddresses: ['aabbccddeeff', '001122334455'] },
        { typeId: 'DOMAIN', id: 'd', domain: '' },
        {
          typeId: 'PROCESS',
          id: 'p',
          path: '/bin/x',
          isRunning: false,
          hash: 'ab'.repeat(32),
          signerFingerprints: ['cd'.repeat(20)],
        },
        { typeId: 'ENDPOINT_STATE', id: 'e', woken: false, unlocked: true },
      ],
    });
  });

  it('names every problem with the item index, and without it for a single response', () => {
    expect(
      fields([
        { id: 'ok', typeId: 'DOMAIN', domain: 'corp' },
        { id: 'm', typeId: 'MAC', macAddresses: 'aa:bb' },
        { id: 'm', typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff', 'xx'] },
        { id: '', typeId: 'OS', type: 'Linux' },
        { id: 'p', typeId: 'PROCESS', path: '', isRunning: true },
        null,
      ]),
    ).toEqual(['[1].macAddresses', '[2].macAddresses[1]', '[3].id', '[3].version', '[4].path', '[5]']);
    const problems: FieldProblem[] = [];
    // isRunning left out means not running (OpenZiti's reading); a wrong kind is still named
    expect(parseResponseItem({ id: 'x', typeId: 'PROCESS', path: '/x' }, '', problems)).toMatchObject({
      isRunning: false,
    });
    expect(
      parseResponseItem({ id: 'x', typeId: 'PROCESS', path: '/x', isRunning: 'yes' }, '', problems),
    ).toBeUndefined();
    expect(problems.map((p) => p.field)).toEqual(['isRunning']);
  });

  it('refuses what is not a posture response type, including MFA and PROCESS_MULTI', () => {
    expect(
      fields([
        { id: 'x', typeId: 'MFA' },
        { id: 'x', typeId: 'PROCESS_MULTI' },
        { id: 'x', typeId: 'os' },
      ]),
    ).toEqual(['[0].typeId', '[1].typeId', '[2].typeId']);
  });
});
