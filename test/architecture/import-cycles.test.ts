import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * No import cycles in app/ and shared/ (docs/architecture.md, "Conventions"). Within every
 * folder, its entries — its files, and its subfolders each taken whole — import each other
 * without a cycle. That covers a cycle between files of one folder, between folders (app/store
 * and app/stats, say), and between a file and a folder beside it; a folder importing its own
 * subfolder, or the reverse, is not a cycle by itself. Type-only imports count: a reader follows
 * them too. Imports are read with TypeScript's own scanner (ts.preProcessFile), relative ones
 * only; packages are outside.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Cycles known when this test was written, in folders whose owners are changing them: a cycle
 * found within one of these folders passes if each of its entries is listed here (so a cycle may
 * shrink, not grow or appear elsewhere). Remove an entry once its cycle is gone.
 */
const tolerated: Record<string, readonly string[]> = {
  // The state's types and schemas, and the engine's memo module with what it memoizes.
  'app/queue': [
    'state.ts',
    'state.schema.ts',
    'state-consistency.ts',
    'abort.ts',
    'aside.ts',
    'batch-events.ts',
    'check-runs.ts',
    'cross-partition.ts',
    'embark.ts',
    'eta.ts',
    'freeze.ts',
    'memo.ts',
    'ordering.ts',
    'queue-events.ts',
    'record-history.ts',
    'sessions-summary.ts',
    'tested-unit.ts',
    'transition.ts',
  ],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each source file of app/ and shared/ (relative to the root) with the files it imports. */
function readImports(): Map<string, string[]> {
  const files = ['app', 'shared'].flatMap((dir) => sourceFiles(join(root, dir)));
  const known = new Set(files.map((f) => relative(root, f)));
  const imports = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(root, resolve(dirname(file), name)))
      .filter((target) => known.has(target));
    imports.set(relative(root, file), targets);
  }
  return imports;
}

/**
 * Per folder, the imports between its entries: an import from a/b/c.ts to a/d/e.ts is an edge
 * from `b` to `d` in folder `a` (their nearest common folder).
 */
function entryGraphs(imports: ReadonlyMap<string, readonly string[]>): Map<string, Map<string, Set<string>>> {
  const graphs = new Map<string, Map<string, Set<string>>>();
  for (const [from, targets] of imports) {
    for (const to of targets) {
      const a = from.split('/');
      const b = to.split('/');
      let i = 0;
      while (i < a.length - 1 && i < b.length - 1 && a[i] === b[i]) i++;
      if (a[i] === b[i]) continue;
      const folder = a.slice(0, i).join('/');
      const graph = graphs.get(folder) ?? new Map<string, Set<string>>();
      graphs.set(folder, graph);
      for (const entry of [a[i]!, b[i]!]) if (!graph.has(entry)) graph.set(entry, new Set());
      graph.get(a[i]!)!.add(b[i]!);
    }
  }
  return graphs;
}

/** The strongly connected components of more than one node (Tarjan): each holds a cycle. */
function findCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('import cycles', () => {
  it('finds a cycle between two folders, and none between a folder and its own subfolder', () => {
    const graphs = entryGraphs(
      new Map([
        ['app/x/a.ts', ['app/y/b.ts', 'app/x/sub/c.ts']],
        ['app/y/b.ts', ['app/x/d.ts']],
        ['app/x/sub/c.ts', ['app/x/d.ts']],
        ['app/x/d.ts', []],
      ]),
    );
    expect(findCycles(graphs.get('app')!)).toEqual([['x', 'y']]);
    expect(findCycles(graphs.get('app/x')!)).toEqual([]);
  });

  it('app/ and shared/ have none, but for the tolerated ones', () => {
    const found: string[] = [];
    for (const [folder, graph] of entryGraphs(readImports())) {
      const allowed = new Set(tolerated[folder] ?? []);
      for (const cycle of findCycles(graph)) {
        if (cycle.every((entry) => allowed.has(entry))) continue;
        found.push(`${folder}: ${cycle.join(' ↔ ')}`);
      }
    }
    expect(found).toEqual([]);
  });
});
