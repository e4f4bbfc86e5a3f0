/**
 * No import cycles anywhere in the project's own code (docs/ARCHITECTURE.md): every file's relative imports,
 * type-only ones included, form a graph without a circle. The controller's folder layering is the lint rule's
 * (eslint.config.js); this one catches the cycles a layering cannot see, inside a folder.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const SOURCE_ROOTS = [
  'controller',
  'src',
  'edge-router',
  'server',
  'desktop',
  'console/src',
  'scripts',
  'bench',
];
const SKIPPED = new Set(['node_modules', 'dist', 'out']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (SKIPPED.has(name)) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative specifiers of `import … from`, `export … from`, side-effect imports and `import()`. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function resolveImport(from: string, specifier: string, known: Set<string>): string | undefined {
  const target = resolve(dirname(from), specifier);
  const stem = target.replace(/\.(js|jsx|mjs)$/, '');
  for (const candidate of [target, `${stem}.ts`, `${stem}.tsx`, join(target, 'index.ts')])
    if (known.has(candidate)) return candidate;
  return undefined;
}

function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)]
        .map((match) => resolveImport(file, match[1]!, known))
        .filter((target): target is string => target !== undefined);
      return [file, targets];
    }),
  );
}

/** One circle per strongly connected component of more than one file (Tarjan), as repository paths. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(relative(ROOT, member));
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('imports', () => {
  it('finds the circle it is made to find', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    expect(circles(graph).map((c) => c.length)).toEqual([3]);
  });

  it('form no cycle in the project’s own code', () => {
    const files = SOURCE_ROOTS.flatMap((dir) => sourceFiles(join(ROOT, dir)));
    expect(files.length).toBeGreaterThan(400);
    expect(circles(importGraph(files))).toEqual([]);
  });
});
