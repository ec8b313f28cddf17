import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * The engine stays pure (docs/architecture.md): this test reads every file under app/queue and
 * fails on an import from outside app/queue, app/config and shared (zod aside), on a call that
 * reaches for the clock, randomness, timers or the process, and on module-level mutable state
 * anywhere but app/queue/memo.ts, which owns the engine's caches.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const engine = join(root, 'app/queue');
const allowedDirs = ['app/queue', 'app/config', 'shared'];
const allowedPackages = new Set(['zod']);

const forbidden: [RegExp, string][] = [
  [/\bDate\.now\s*\(/, 'Date.now()'],
  [/\bnew\s+Date\s*\(\s*\)/, 'new Date() without an argument'],
  [/\bMath\.random\s*\(/, 'Math.random()'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\s*\(/, 'a timer'],
  [/\brandomUUID\b/, 'randomUUID'],
  [/\bprocess\./, 'process'],
  [/\brequire\s*\(/, 'require()'],
  [/\bperformance\.now\s*\(/, 'performance.now()'],
  [/\bfetch\s*\(/, 'fetch()'],
];

/** The one module allowed module-level mutable state: the caches keyed by immutable state objects. */
const memoModule = join(engine, 'memo.ts');
const collections = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'Array']);
const mutators = new Set([
  ...['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin'],
  ...['set', 'add', 'delete', 'clear'],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Violations in one file's text, as readable sentences. */
function findViolations(file: string, text: string): string[] {
  const problems: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  for (const match of code.matchAll(
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]/g,
  )) {
    const specifier = match[1] ?? match[2]!;
    if (specifier.startsWith('.')) {
      const target = relative(root, resolve(dirname(file), specifier));
      if (!allowedDirs.some((dir) => target.startsWith(`${dir}/`))) problems.push(`imports ${specifier}`);
    } else if (!allowedPackages.has(specifier)) {
      problems.push(`imports the package ${specifier}`);
    }
  }
  for (const [pattern, what] of forbidden) if (pattern.test(code)) problems.push(`uses ${what}`);
  return problems;
}

/** The collection a module-level initializer creates (outside any function in it), or null. */
function findCollection(node: ts.Node): string | null {
  if (ts.isFunctionLike(node)) return null;
  if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && collections.has(node.expression.text)) {
    return `new ${node.expression.text}()`;
  }
  return ts.forEachChild(node, findCollection) ?? null;
}

function isLiteral(node: ts.Expression): boolean {
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node)) {
    return isLiteral(node.expression);
  }
  return ts.isArrayLiteralExpression(node) || ts.isObjectLiteralExpression(node);
}

const assignments = new Set([
  ts.SyntaxKind.EqualsToken,
  ...[ts.SyntaxKind.PlusEqualsToken, ts.SyntaxKind.MinusEqualsToken, ts.SyntaxKind.AsteriskEqualsToken],
  ...[ts.SyntaxKind.QuestionQuestionEqualsToken, ts.SyntaxKind.BarBarEqualsToken],
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
]);

/** Whether this use of a name changes what it holds: `x.push(…)`, `x.a.set(…)`, `x[k] = …`, `delete x.k`, `x.n++`. */
function isMutation(use: ts.Identifier): boolean {
  let top: ts.Node = use;
  while (
    (ts.isPropertyAccessExpression(top.parent) || ts.isElementAccessExpression(top.parent)) &&
    top.parent.expression === top
  ) {
    top = top.parent;
    const call = top.parent;
    if (ts.isPropertyAccessExpression(top) && mutators.has(top.name.text) && ts.isCallExpression(call)) {
      if (call.expression === top) return true;
    }
  }
  const parent = top.parent;
  if (ts.isCallExpression(parent) && parent.expression.getText() === 'Object.assign') {
    return parent.arguments[0] === top;
  }
  if (top === use) return false;
  if (ts.isBinaryExpression(parent) && parent.left === top) return assignments.has(parent.operatorToken.kind);
  return (
    ts.isDeleteExpression(parent) ||
    ((ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) &&
      (parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken))
  );
}

/**
 * Module-level mutable state in one file's text, as readable sentences: a `let` or `var`, a
 * collection created at load (`new Map()`, `new WeakMap()`…), an array or object literal the
 * file changes. Decision code keeps its caches in app/queue/memo.ts instead.
 */
function findModuleState(text: string): string[] {
  const source = ts.createSourceFile('module.ts', text, ts.ScriptTarget.Latest, true);
  const problems: string[] = [];
  const literals = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(source);
      const created = declaration.initializer && findCollection(declaration.initializer);
      if (!constant) problems.push(`keeps module-level state in a variable (${name})`);
      else if (created) problems.push(`keeps a module-level ${created} (${name})`);
      else if (declaration.initializer && isLiteral(declaration.initializer)) literals.add(name);
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && literals.has(node.text) && isMutation(node)) {
      problems.push(`changes the module-level ${node.text}`);
      literals.delete(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

describe('the engine is pure', () => {
  const files = sourceFiles(engine);

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('imports nothing outside app/queue, app/config and shared, and never reads the clock, randomness or timers', () => {
    const violations = files.flatMap((file) =>
      findViolations(file, readFileSync(file, 'utf8')).map((v) => `${relative(root, file)} ${v}`),
    );
    expect(violations).toEqual([]);
  });

  it('catches each forbidden thing (the guard itself works)', () => {
    const file = join(engine, 'example.ts');
    expect(findViolations(file, "import { readFile } from 'node:fs';")).toEqual([
      'imports the package node:fs',
    ]);
    expect(findViolations(file, "import { x } from '../store/x.ts';")).toEqual(['imports ../store/x.ts']);
    expect(findViolations(file, "import { x } from '../config/x.ts';")).toEqual([]);
    expect(findViolations(file, 'const t = Date.now();')).toEqual(['uses Date.now()']);
    expect(findViolations(file, 'const t = new Date();')).toEqual(['uses new Date() without an argument']);
    expect(findViolations(file, 'const t = new Date(at);')).toEqual([]);
    expect(findViolations(file, 'setTimeout(f, 1);')).toEqual(['uses a timer']);
    expect(findViolations(file, 'const r = Math.random();')).toEqual(['uses Math.random()']);
    expect(findViolations(file, 'crypto.randomUUID()')).toEqual(['uses randomUUID']);
  });

  it('keeps module-level mutable state in app/queue/memo.ts only', () => {
    const violations = files
      .filter((file) => file !== memoModule)
      .flatMap((file) =>
        findModuleState(readFileSync(file, 'utf8')).map((v) => `${relative(root, file)} ${v}`),
      );
    expect(violations).toEqual([]);
  });

  it('knows the caches of app/queue/memo.ts (a new one is declared there, and listed here)', () => {
    expect(findModuleState(readFileSync(memoModule, 'utf8'))).toEqual([
      'keeps a module-level new WeakMap() (recordParents)',
      'keeps a module-level new WeakMap() (sessionsSummaries)',
      'keeps a module-level new WeakMap() (sessionSizeKeys)',
      'keeps a module-level new WeakMap() (laneOrders)',
      'keeps module-level state in a variable (latestOrder)',
      'keeps a module-level new WeakMap() (headlines)',
      'keeps a module-level new WeakMap() (laneHeadlines)',
      'keeps a module-level new WeakMap() (checkedHeadlines)',
    ]);
  });

  it('catches module-level mutable state (the state guard itself works)', () => {
    expect(findModuleState('const memo = new WeakMap<object, number>();')).toEqual([
      'keeps a module-level new WeakMap() (memo)',
    ]);
    expect(findModuleState('export const caches = { byId: new Map<string, number>() };')).toEqual([
      'keeps a module-level new Map() (caches)',
    ]);
    expect(findModuleState('let last: string | null = null;')).toEqual([
      'keeps module-level state in a variable (last)',
    ]);
    expect(
      findModuleState('const seen: number[] = [];\nexport function see(n: number) { seen.push(n); }'),
    ).toEqual(['changes the module-level seen']);
    expect(findModuleState('const counts = { all: 0 };\nexport function f() { counts.all += 1; }')).toEqual([
      'changes the module-level counts',
    ]);
    expect(
      findModuleState('const byKey: Record<string, number> = {};\nfunction f(k: string) { byKey[k] = 1; }'),
    ).toEqual(['changes the module-level byKey']);
    // Constants, and state that lives inside a call, are fine.
    expect(findModuleState('const LIMITS = [1, 2] as const;\nexport const first = LIMITS[0];')).toEqual([]);
    expect(findModuleState("const WHY = { code: 'X' } as const;\nexport const f = () => WHY.code;")).toEqual(
      [],
    );
    expect(findModuleState('export function f() { const seen = new Set<number>(); seen.add(1); }')).toEqual(
      [],
    );
    expect(findModuleState('export const make = () => new Map<string, number>();')).toEqual([]);
  });

  it('keeps files short enough to read (under ~300 lines)', () => {
    const long = files.filter((file) => readFileSync(file, 'utf8').split('\n').length > 320);
    expect(long.map((file) => relative(root, file))).toEqual([]);
  });
});
