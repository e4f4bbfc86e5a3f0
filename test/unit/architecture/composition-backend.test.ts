/**
 * The controller's composition (controller/composition/, server/) has no backend branch: what differs between
 * SQLite and PostgreSQL (limits, outbox, deadline takeover, router presence, the folder lock) is reached only
 * through `StoreBackend` (controller/backend/store-backend.ts), opened by `openBackend`. The requirement is
 * structural, so this reads the sources: the composition imports no module of either store, neither backend
 * implementation, nothing those implementations import that the other does not hand out through the
 * interface, and never asks which backend it has.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const COMPOSITION = ['controller/composition', 'server'];
const IMPLEMENTATIONS = ['controller/backend/sqlite-backend.ts', 'controller/backend/postgres-backend.ts'];
/** Each store's own code: opening, repositories, migrations. */
const STORE_OWN =
  /^controller\/store\/(sqlite\/|postgres\/|sqlite-store\.ts$|database\.ts$|data-folder\.ts$)/;
/** Asking which backend this is: by class, by the store's name, or by the configuration's URL. */
const BRANCH = [
  /instanceof\s+(Pg|Postgres|Sqlite)\w*/,
  /\.backend\s*[!=]==/,
  /\bconfig\.database\b(?!\s*=[^=])/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Repository paths of a file's relative imports that bring values (`import type` brings none). */
function valueImports(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  return [...source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'(\.{1,2}\/[^']+)'/gms)].map((m) =>
    relative(ROOT, resolve(dirname(join(ROOT, file)), m[1]!)).replace(/\.js$/, '.ts'),
  );
}

const compositionFiles = () =>
  COMPOSITION.flatMap((dir) => sourceFiles(join(ROOT, dir))).map((path) => relative(ROOT, path));

describe('the composition has no backend branch', () => {
  it('reads the imports it checks (type-only ones left out)', () => {
    const imports = IMPLEMENTATIONS.flatMap(valueImports);
    expect(imports).toContain('controller/store/postgres/pg-store.ts');
    expect(imports).toContain('controller/events/access-outbox.ts');
    expect(imports).not.toContain('controller/backend/store-backend.ts');
  });

  it('imports neither store nor backend implementation, nor what only an implementation uses', () => {
    const owned = new Set([...IMPLEMENTATIONS, ...IMPLEMENTATIONS.flatMap(valueImports)]);
    const files = compositionFiles();
    expect(files).toContain('controller/composition/start-controller.ts');
    const offending = files.flatMap((file) =>
      valueImports(file)
        .filter((target) => owned.has(target) || STORE_OWN.test(target))
        .map((target) => `${file} imports ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('never asks which backend it has', () => {
    const offending = compositionFiles().flatMap((file) => {
      const source = readFileSync(join(ROOT, file), 'utf8');
      return BRANCH.filter((pattern) => pattern.test(source)).map((pattern) => `${file}: ${pattern}`);
    });
    expect(offending).toEqual([]);
  });
});
