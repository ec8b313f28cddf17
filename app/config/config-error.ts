import { z } from 'zod';
import { describeValue } from './describe-value.ts';

/**
 * One problem in `.github/trainyard.yml`: where (`queue_rules[0].batch_size`, or '' for the
 * whole file), what was expected and what was found, and the 1-based line/column when known.
 * The engine stores them as they are (the state's `configErrors`).
 */
export const configErrorSchema = z.strictObject({
  path: z.string(),
  message: z.string(),
  line: z.int().optional(),
  column: z.int().optional(),
});
export type ConfigError = z.infer<typeof configErrorSchema>;

const EXPECTED_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a mapping',
  array: 'a list',
  null: 'null',
};

/** Zod's messages in a YAML author's words ("expected …, found …"), for every issue a schema does not word itself. */
export const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  const found = describeValue(issue.input);
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${EXPECTED_NAMES[issue.expected] ?? issue.expected}, found ${found}`;
    case 'invalid_value': {
      const values = issue.values.map((value) => JSON.stringify(value));
      return `expected ${values.length === 1 ? values[0] : `one of ${values.join(', ')}`}, found ${found}`;
    }
    case 'too_small':
      return issue.origin === 'array'
        ? `expected at least ${issue.minimum} item(s), found ${found}`
        : `expected at least ${issue.minimum}, found ${found}`;
    case 'too_big':
      return issue.origin === 'array'
        ? `expected at most ${issue.maximum} item(s), found a list of ${(issue.input as unknown[]).length}`
        : `expected at most ${issue.maximum}, found ${found}`;
    case 'invalid_format':
      return `expected ${issue.format}, found ${found}`;
    default:
      return undefined;
  }
};

/** `['queue_rules', 0, 'batch_size']` → `queue_rules[0].batch_size`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_][\w-]*$/.test(segment))
      text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}
