import { describe, expect, it } from 'vitest';
import { osCheck } from '../../../controller/posture/checks/os-check.js';
import { parseReportedVersion, parseVersionRange } from '../../../controller/posture/checks/semver-range.js';
import type { OsCheck } from '../../../controller/posture-model.js';
import { checkFrom, ctx, data, slot } from './fixtures.js';

function linux(...versions: string[]): OsCheck {
  return checkFrom('OS', { operatingSystems: [{ type: 'LINUX', versions }] });
}

function run(check: OsCheck, type: string, version: string, build: string | null = null) {
  return osCheck.evaluate(check, data({ os: { ...slot, type, version, build } }), ctx());
}

const passes = (check: OsCheck, version: string) => run(check, 'linux', version).isPassing;

describe('OS check: the documented semver examples', () => {
  it('>=1.2.7 <1.3.0 matches 1.2.7 through 1.2.x, not 1.3.0 or 1.2.6', () => {
    const check = linux('>=1.2.7 <1.3.0');
    expect(passes(check, '1.2.7')).toBe(true);
    expect(passes(check, '1.2.8')).toBe(true);
    expect(passes(check, '1.3.0')).toBe(false);
    expect(passes(check, '1.2.6')).toBe(false);
  });

  it('>=1.2.7 matches 1.2.7 and everything above', () => {
    const check = linux('>=1.2.7');
    expect(passes(check, '1.2.7')).toBe(true);
    expect(passes(check, '1.10.0')).toBe(true);
    expect(passes(check, '40.0.0')).toBe(true);
    expect(passes(check, '1.2.6')).toBe(false);
  });

  it('1.2.7 || >=1.2.9 <2.0.0 matches 1.2.7 and 1.2.9 but not 1.2.8 or 2.0.0', () => {
    const check = linux('1.2.7 || >=1.2.9 <2.0.0');
    expect(passes(check, '1.2.7')).toBe(true);
    expect(passes(check, '1.2.9')).toBe(true);
    expect(passes(check, '1.99.0')).toBe(true);
    expect(passes(check, '1.2.8')).toBe(false);
    expect(passes(check, '2.0.0')).toBe(false);
  });

  it('supports ==, !=, wildcards and an operator separated from its version', () => {
    expect(passes(linux('==1.2.3'), '1.2.3')).toBe(true);
    expect(passes(linux('!=1.2.3'), '1.2.3')).toBe(false);
    expect(passes(linux('!=1.2.3'), '1.2.4')).toBe(true);
    expect(passes(linux('1.2.x'), '1.2.99')).toBe(true);
    expect(passes(linux('1.2.x'), '1.3.0')).toBe(false);
    expect(passes(linux('>= 6.8.0'), '6.8.0')).toBe(true);
    expect(passes(linux('<=1.x'), '1.99.99')).toBe(true);
    expect(passes(linux('<=1.x'), '2.0.0')).toBe(false);
  });
});

describe('OS check: reported versions', () => {
  it('compares by semver precedence, a prerelease below its release, as OpenZiti does', () => {
    expect(passes(linux('>=6.8.0'), '6.8.0-45-generic')).toBe(false);
    expect(passes(linux('<6.8.0'), '6.8.0-45-generic')).toBe(true);
    expect(passes(linux('>=6.7.0'), '6.8.0-45-generic')).toBe(true);
    expect(passes(linux('>=6.8.0'), '6.8.0')).toBe(true);
    // a suffix semver cannot order (an underscore) is dropped: the release part counts
    expect(passes(linux('>=6.5.0 <6.6.0'), '6.5.6-300.fc39.x86_64')).toBe(true);
    // a bound that names a prerelease orders prerelease tags by semver precedence
    expect(passes(linux('>=6.8.0-50'), '6.8.0-45')).toBe(false);
    expect(passes(linux('>=6.8.0-50'), '6.8.0')).toBe(true);
  });

  it('uses the build as patch when the version has only MAJOR.MINOR', () => {
    const check = checkFrom('OS', { operatingSystems: [{ type: 'WINDOWS', versions: ['>=10.0.19041'] }] });
    expect(run(check, 'windows', '10.0', '19041').isPassing).toBe(true);
    expect(run(check, 'windows', '10.0', '19040').isPassing).toBe(false);
    expect(parseReportedVersion('10.0', '19041')).toMatchObject({ text: '10.0.19041' });
  });

  it('uses the first three parts of a 4-part Windows version', () => {
    const check = checkFrom('OS', {
      operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041 <10.0.19042'] }],
    });
    expect(run(check, 'windows', '10.0.19041.1234', '19041').isPassing).toBe(true);
    expect(parseReportedVersion('10.0.19041.1234', null)).toMatchObject({
      major: 10,
      minor: 0,
      patch: 19041,
    });
  });

  it('reads versions without a patch as .0 when there is no numeric build (macOS 14.5, Android 14)', () => {
    expect(parseReportedVersion('14.5', '23F79')).toMatchObject({ text: '14.5.0' });
    expect(parseReportedVersion('14', null)).toMatchObject({ text: '14.0.0' });
  });

  it.each(['banana', '', '10.', '10.5.', '10.this is junk', '1.2.3.4.5'])(
    'cannot read the reported version %j',
    (v) => {
      expect(typeof parseReportedVersion(v, '19041')).toBe('string');
    },
  );

  it('fails an unparseable reported version with a reason', () => {
    const result = run(linux('>=1.0.0'), 'linux', 'banana');
    expect(result.isPassing).toBe(false);
    expect(result.reason).toContain('"banana" is not a version number');
    expect(result.actualValue).toEqual({ type: 'linux', version: 'banana' });
  });

  it('says when a version is older or newer than allowed', () => {
    expect(run(linux('>=6.8.0'), 'linux', '5.15.0').reason).toBe(
      'Linux 5.15.0 is older than required (>=6.8.0)',
    );
    expect(run(linux('<6.0.0'), 'linux', '6.1.0').reason).toBe('Linux 6.1.0 is newer than allowed (<6.0.0)');
  });

  it('lets an OS listed without versions match any version, even junk', () => {
    const check = checkFrom('OS', {
      operatingSystems: [{ type: 'macOS' }, { type: 'Linux', versions: ['>=6.0.0'] }],
    });
    expect(run(check, 'macos', '', null).isPassing).toBe(true);
    expect(run(check, 'macOS', 'anything').isPassing).toBe(true);
    expect(run(check, 'linux', '5.0.0').isPassing).toBe(false);
  });

  it('matches the OS type case-insensitively and refuses unlisted types', () => {
    const check = linux('>=1.0.0');
    expect(run(check, 'LINUX', '1.0.0').isPassing).toBe(true);
    expect(run(check, 'Linux', '1.0.0').isPassing).toBe(true);
    const other = run(check, 'windows', '10.0.0');
    expect(other.isPassing).toBe(false);
    expect(other.reason).toContain('windows is not an allowed operating system');
    expect(other.expectedValue).toEqual([{ type: 'Linux', versions: ['>=1.0.0'] }]);
  });

  it('fails when no OS was reported', () => {
    const result = osCheck.evaluate(linux(), null, ctx());
    expect(result.isPassing).toBe(false);
    expect(result.actualValue).toEqual({ type: '', version: '' });
  });
});

describe('OS check: parse', () => {
  it('stores canonical type spellings', () => {
    const result = osCheck.parse(
      {
        operatingSystems: [
          { type: 'Windows Server' },
          { type: 'MacOS', versions: null },
          { type: 'ANDROID', versions: [] },
        ],
      },
      'create',
    );
    expect(result).toEqual({
      ok: true,
      spec: {
        typeId: 'OS',
        operatingSystems: [
          { type: 'WindowsServer', versions: [] },
          { type: 'macOS', versions: [] },
          { type: 'Android', versions: [] },
        ],
      },
    });
  });

  it('refuses banana at operatingSystems[0].versions[0]', () => {
    const result = osCheck.parse({ operatingSystems: [{ type: 'Linux', versions: ['banana'] }] }, 'create');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.field)).toEqual(['operatingSystems[0].versions[0]']);
  });

  it('reports every problem by its path', () => {
    const result = osCheck.parse(
      {
        operatingSystems: [
          { type: 'Linux', versions: ['>=1.0.0', '~1.2.3'] },
          { type: 'BeOS' },
          7,
          { type: 'iOS', versions: 'x' },
        ],
      },
      'create',
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems.map((p) => p.field)).toEqual([
        'operatingSystems[0].versions[1]',
        'operatingSystems[1].type',
        'operatingSystems[2]',
        'operatingSystems[3].versions',
      ]);
    }
  });

  it('requires a non-empty list on create and update, not on patch', () => {
    for (const body of [
      {},
      { operatingSystems: [] },
      { operatingSystems: null },
      { operatingSystems: 'Linux' },
    ]) {
      expect(osCheck.parse(body, 'create').ok).toBe(false);
      expect(osCheck.parse(body, 'update').ok).toBe(false);
    }
    const existing = {
      typeId: 'OS' as const,
      operatingSystems: [{ type: 'Linux' as const, versions: ['>=1.0.0'] }],
    };
    expect(osCheck.parse({}, 'patch', existing)).toEqual({ ok: true, spec: existing });
    const patched = osCheck.parse({ operatingSystems: [{ type: 'ios' }] }, 'patch', existing);
    expect(patched).toEqual({
      ok: true,
      spec: { typeId: 'OS', operatingSystems: [{ type: 'iOS', versions: [] }] },
    });
  });
});

describe('version range syntax', () => {
  it.each([
    'banana',
    '',
    '   ',
    '1.2.3 -',
    '1.2.3 - 2.0.0',
    '^1.2.3',
    '~1.2',
    '>',
    '1.x.3',
    '1.2.3 ||',
    '>x',
    'v1.2.3',
  ])('refuses %j', (source) => expect(typeof parseVersionRange(source)).toBe('string'));
  it.each([
    '1.2.3',
    '>=1.2.7 <1.3.0',
    '1.2.7 || >=1.2.9 <2.0.0',
    '>= 1.2.3',
    '!1.2.3',
    '*',
    '1.x',
    '>=10.0',
    '1.0.0-rc.1',
  ])('accepts %j', (source) => expect(typeof parseVersionRange(source)).toBe('object'));
});

describe('OS check: results remembered per check and report', () => {
  it('the same report gets the same result; another build, another check or a flood of reports is evaluated anew', () => {
    const check = linux('>=6.0.0');
    const first = run(check, 'linux', '6.8.0');
    expect(run(check, 'linux', '6.8.0')).toBe(first);
    // build counts as the patch when the version has none: a different key, a different answer
    expect(run(check, 'linux', '5', '9').isPassing).toBe(false);
    expect(run(check, 'linux', '6', '1').isPassing).toBe(true);
    const raised = linux('>=7.0.0');
    expect(run(raised, 'linux', '6.8.0').isPassing).toBe(false);
    expect(run(check, 'linux', '6.8.0')).toBe(first);
    // past the bound the kept results start afresh, and every answer is still right
    for (let minor = 0; minor < 1_100; minor++)
      expect(run(check, 'linux', `5.${minor}.0`).isPassing, `5.${minor}.0`).toBe(false);
    expect(run(check, 'linux', '6.8.0').isPassing).toBe(true);
    expect(run(check, 'windows', '6.8.0').isPassing).toBe(false);
    expect(run(check, '', '6.8.0').failure?.code).toBe('NO_DATA_YET');
  });
});
