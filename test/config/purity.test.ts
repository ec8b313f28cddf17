import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// app/queue imports app/config, and the engine must stay pure and deterministic (docs/architecture.md).
const ROOT = join(import.meta.dirname, '../../app/config');
const FORBIDDEN: [RegExp, string][] = [
  [/Date\.now\(/, 'reads the clock'],
  [/new Date\(\s*\)/, 'reads the clock'],
  [/Math\.random\(/, 'draws random numbers'],
  [/randomUUID/, 'draws random ids'],
  [/\bset(Timeout|Interval|Immediate)\(/, 'starts a timer'],
  [/from 'node:/, 'imports a Node module'],
  [/\bprocess\./, 'reads the process environment'],
  [/\bfetch\(/, 'does network I/O'],
];

const files = readdirSync(ROOT, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));

describe('app/config is pure', () => {
  it('has files to check', () => {
    expect(files).toContain(join('conditions', 'evaluate-conditions.ts'));
  });

  it.each(files)('%s does no I/O and reads no clock or randomness', (file) => {
    const source = readFileSync(join(ROOT, file), 'utf8');
    const found = FORBIDDEN.filter(([pattern]) => pattern.test(source)).map(([, why]) => why);
    expect(found).toEqual([]);
  });
});
