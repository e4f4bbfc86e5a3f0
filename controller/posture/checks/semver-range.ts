/**
 * Version ranges of OS checks and the reported OS versions they are matched against.
 *
 * Range syntax is OpenZiti's (blang/semver v3): comparators `=`/`==`/none, `!=`/`!`, `>`, `>=`, `<`, `<=`,
 * a space between comparators is AND, `||` is OR, and `x`/`X`/`*` wildcards (`1.2.x`, `>=1.x`). A partial
 * version (`>=10.0`) is read as its wildcard (`>=10.0.x`). npm's `semver.Range` is not used for ranges: it
 * has no `!=` or `==`, and it accepts `~`, `^` and hyphen ranges that OpenZiti refuses; we refuse them too,
 * so a range stored here means the same thing to an OpenZiti controller.
 *
 * Versions compare by semver precedence, as OpenZiti's controller compares them: a prerelease is below its
 * release (`6.8.0-45-generic` < 6.8.0, so it fails `>=6.8.0`). Postern's own Linux agent therefore reports a
 * kernel release `6.8.0-45-generic` as version `6.8.0` with build `45-generic`; an OpenZiti SDK that sends the
 * whole release as the version gets OpenZiti's answer.
 */
import semver from 'semver';

export interface Version {
  major: number;
  minor: number;
  patch: number;
  prerelease: string | null;
  /** MAJOR.MINOR.PATCH[-prerelease], valid semver */
  text: string;
}

/** Why a version failed a range: below a lower bound, above an upper bound, or neither (`!=`). */
export type Miss = 'low' | 'high' | 'other';
type Test = (v: Version) => Miss | null;

export interface VersionRange {
  source: string;
  /** OR of ANDs */
  alternatives: Test[][];
}

function compare(v: Version, bound: Version): number {
  const release = Math.sign(v.major - bound.major || v.minor - bound.minor || v.patch - bound.patch);
  if (release !== 0 || (v.prerelease === null && bound.prerelease === null)) return release;
  return semver.compare(v.text, bound.text);
}

type Op = '=' | '!=' | '>' | '>=' | '<' | '<=';
const OPS: Record<string, Op> = {
  '': '=',
  '=': '=',
  '==': '=',
  '!=': '!=',
  '!': '!=',
  '>': '>',
  '>=': '>=',
  '<': '<',
  '<=': '<=',
};

function comparator(op: Op, bound: Version): Test {
  return (v) => {
    const c = compare(v, bound);
    if (op === '=') return c === 0 ? null : c < 0 ? 'low' : 'high';
    if (op === '!=') return c !== 0 ? null : 'other';
    if (op === '>') return c > 0 ? null : 'low';
    if (op === '>=') return c >= 0 ? null : 'low';
    if (op === '<') return c < 0 ? null : 'high';
    return c <= 0 ? null : 'high';
  };
}

function version(major: number, minor: number, patch: number, prerelease: string | null = null): Version {
  const text = `${major}.${minor}.${patch}${prerelease === null ? '' : `-${prerelease}`}`;
  return { major, minor, patch, prerelease, text };
}

const NUM = '(0|[1-9]\\d*)';
const IDENT = '(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)';
const FULL = new RegExp(
  `^${NUM}\\.${NUM}\\.${NUM}(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$`,
);
const PARTIAL = /^(0|[1-9]\d*|[xX*])(?:\.(0|[1-9]\d*|[xX*]))?(?:\.(0|[1-9]\d*|[xX*]))?$/;
const WILD = /^[xX*]$/;

/** The tests for one comparator token (`>=1.2.3`, `1.x`), or a reason it is not one. */
function parseComparator(token: string): Test[] | string {
  if (/^[~^]/.test(token))
    return '`~` and `^` ranges are not supported; write the bounds, e.g. >=1.2.3 <1.3.0';
  const m = /^(==|!=|>=|<=|=|!|>|<)?(.*)$/.exec(token);
  const op = OPS[m?.[1] ?? ''] as Op;
  const body = m?.[2] ?? '';
  if ((body.match(/\d+/g) ?? []).some((n) => !Number.isSafeInteger(Number(n)))) {
    return `"${token}" has a number too large to compare`;
  }
  const full = FULL.exec(body);
  if (full)
    return [comparator(op, version(Number(full[1]), Number(full[2]), Number(full[3]), full[4] ?? null))];
  const partial = PARTIAL.exec(body);
  if (!partial) return `"${token}" is not a version comparator such as >=1.2.3 or 1.2.x`;
  // A wildcard part may only be followed by wildcards: 1.x.3 means nothing.
  const parts = [partial[1], partial[2], partial[3]];
  const fixed: number[] = [];
  for (const p of parts) {
    if (p === undefined || WILD.test(p)) break;
    fixed.push(Number(p));
  }
  if (parts.slice(fixed.length).some((p) => p !== undefined && !WILD.test(p))) {
    return `"${token}" has a number after a wildcard`;
  }
  if (fixed.length === 0) {
    return op === '=' || op === '>=' || op === '<=' ? [] : `"${token}" can match no version`;
  }
  // [lo, hi) is the set the wildcard stands for: 1.x is [1.0.0, 2.0.0), 1.2.x is [1.2.0, 1.3.0).
  const [major = 0, minor = 0] = fixed;
  const lo = version(major, fixed.length > 1 ? minor : 0, 0);
  const hi = fixed.length === 1 ? version(major + 1, 0, 0) : version(major, minor + 1, 0);
  switch (op) {
    case '=':
      return [comparator('>=', lo), comparator('<', hi)];
    case '!=':
      return [(v) => (compare(v, lo) >= 0 && compare(v, hi) < 0 ? 'other' : null)];
    case '>':
      return [comparator('>=', hi)];
    case '>=':
      return [comparator('>=', lo)];
    case '<':
      return [comparator('<', lo)];
    case '<=':
      return [comparator('<', hi)];
  }
}

/** Parses a range statement; a string result is the reason it is refused. */
export function parseVersionRange(source: unknown): VersionRange | string {
  if (typeof source !== 'string') return 'must be a version range string such as >=1.2.3 <2.0.0';
  if (source.trim() === '') return 'must not be empty';
  const alternatives: Test[][] = [];
  for (const alt of source.split('||')) {
    // An operator may stand apart from its version (`>= 1.2.3`); join it back before splitting on spaces.
    const tokens = alt
      .trim()
      .replace(/(==|!=|>=|<=|=|!|>|<)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    if (tokens.length === 0) return '`||` must have a comparator on each side';
    if (tokens.includes('-')) return 'hyphen ranges (1.2.3 - 2.0.0) are not supported; write >=1.2.3 <=2.0.0';
    const tests: Test[] = [];
    for (const token of tokens) {
      const parsed = parseComparator(token);
      if (typeof parsed === 'string') return parsed;
      tests.push(...parsed);
    }
    alternatives.push(tests);
  }
  return { source: source.trim(), alternatives };
}

const cache = new Map<string, VersionRange | string>();

/** parseVersionRange with memo: stored checks are evaluated on every posture change, their ranges rarely vary. */
export function cachedRange(source: string): VersionRange | string {
  let hit = cache.get(source);
  if (hit === undefined) {
    if (cache.size >= 10_000) cache.clear();
    hit = parseVersionRange(source);
    cache.set(source, hit);
  }
  return hit;
}

/** null when `v` is in one of the ranges, else why it missed them all (`low` only if it is below every one). */
export function matchRanges(ranges: readonly VersionRange[], v: Version): Miss | null {
  const misses = new Set<Miss>();
  for (const range of ranges) {
    for (const tests of range.alternatives) {
      const miss = tests.map((t) => t(v)).find((r) => r !== null) ?? null;
      if (miss === null) return null;
      misses.add(miss);
    }
  }
  return misses.size === 1 ? [...misses][0]! : 'other';
}

/**
 * Reads a version an agent reported. Lenient where OS versions differ from semver, strict otherwise:
 * - MAJOR.MINOR with a numeric build takes the build as patch (`10.0` + build `19041` is 10.0.19041, Postern's
 *   rule; OpenZiti ignores the build); otherwise missing parts are 0 (macOS says `14.5` for 14.5.0 with build `23F79`, Android says `14`);
 * - a fourth part is dropped (`10.0.19041.1234` is 10.0.19041: Windows' revision is not semver);
 * - a `-suffix` is kept as the prerelease (see the top of this file), `+build` metadata is ignored.
 */
export function parseReportedVersion(text: string, build: unknown): Version | string {
  // Any suffix after `-` is accepted here (Fedora's `6.5.6-300.fc39.x86_64` has `_`) and dropped below if unordered.
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.\d+)?(?:-([^+\s]+))?(?:\+\S*)?$/.exec(text.trim());
  if (!m) return `"${text}" is not a version number (expected MAJOR.MINOR.PATCH)`;
  const buildPatch = typeof build === 'string' ? /^\s*(\d+)(?:\.\d+)*\s*$/.exec(build)?.[1] : undefined;
  const patch = m[3] ?? (m[2] !== undefined ? buildPatch : undefined) ?? '0';
  const parts = [m[1] ?? '0', m[2] ?? '0', patch].map(Number);
  if (parts.some((p) => !Number.isSafeInteger(p))) return `"${text}" has a part too large to compare`;
  const [major = 0, minor = 0, p = 0] = parts;
  // A suffix that is not a valid semver prerelease (`-045`, `-1.fc39.x86_64`) cannot be ordered: the release part counts.
  const pre = m[4] !== undefined && semver.valid(`${major}.${minor}.${p}-${m[4]}`) ? m[4] : null;
  return version(major, minor, p, pre);
}
