import { z } from 'zod';
import { didYouMean } from './closest-name.ts';
import { describeValue } from './describe-value.ts';

/**
 * A YAML mapping with a fixed set of keys. Unknown keys are errors, one per key at the key's own
 * path, naming it and the nearest known key — a misspelt setting must not be silently ignored.
 */
export function strictMapping<Shape extends z.ZodRawShape>(shape: Shape) {
  const allowed = Object.keys(shape);
  const unknownKey = z.unknown().refine(() => false, {
    error: (issue) => {
      const key = String(issue.path?.at(-1) ?? '');
      const hint = didYouMean(key, allowed);
      return `unknown key "${key}"${hint === '' ? `; expected one of: ${allowed.join(', ')}` : hint}`;
    },
  });
  return z
    .object(shape, {
      error: (issue) =>
        issue.code === 'invalid_type' ? `expected a mapping, found ${describeValue(issue.input)}` : undefined,
    })
    .catchall(unknownKey)
    .transform((value) => {
      const known: Record<string, unknown> = {};
      for (const key of allowed) if (key in value) known[key] = value[key];
      return known as z.output<z.ZodObject<Shape>>;
    });
}
