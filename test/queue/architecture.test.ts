import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The engine stays pure (docs/architecture.md): this test reads every file under app/queue and
 * fails on an import from outside app/queue, app/config and shared (zod aside), or on a call
 * that reaches for the clock, randomness, timers or the process.
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

  it('keeps files short enough to read (under ~300 lines)', () => {
    const long = files.filter((file) => readFileSync(file, 'utf8').split('\n').length > 320);
    expect(long.map((file) => relative(root, file))).toEqual([]);
  });
});
