import { z } from 'zod';
import { DEFAULT_PARTITION_NAME } from '../../shared/schemas/default-names.ts';
import { conditionListSchema } from './conditions/conditions.schema.ts';
import { configErrorMap } from './config-error.ts';
import { describeValue, isMapping } from './describe-value.ts';
import { parseDuration } from './duration.ts';
import { strictMapping } from './strict-mapping.ts';

/**
 * `.github/trainyard.yml` (docs/queue-semantics.md, "Configuration"). Parsing gives the normalized
 * form the engine uses: durations in seconds, conditions as trees, batch_size as {min, max},
 * priority as a number plus the alias it was written with.
 */

export const MAX_BATCH_SIZE = 128;
export const PRIORITY_ALIASES = { low: 1000, medium: 2000, high: 3000 } as const;
export type PriorityAlias = keyof typeof PRIORITY_ALIASES;
/** The priority of a pull request that matches no priority rule. */
export const DEFAULT_PRIORITY = { priority: PRIORITY_ALIASES.medium, priority_alias: 'medium' } as const;

const expectedFound = (expected: string) => (issue: { input?: unknown }) =>
  `expected ${expected}, found ${describeValue(issue.input)}`;

function integer(min: number, max?: number) {
  const error = expectedFound(max === undefined ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`);
  const atLeast = z.int({ error }).min(min, { error });
  return max === undefined ? atLeast : atLeast.max(max, { error });
}

function nullableInteger(min: number) {
  const error = expectedFound(`an integer ≥ ${min}, or null`);
  return z.int({ error }).min(min, { error }).nullable();
}

const name = (what: string) =>
  z.string({ error: expectedFound(`a ${what} name`) }).regex(/^\S(.*\S)?$/, {
    error: expectedFound(`a non-empty ${what} name without surrounding spaces`),
  });

const queueRuleName = z.string({ error: expectedFound('a queue rule name') }).regex(/^\S+$/, {
  error: expectedFound('a queue rule name without spaces (it is typed in "@trainyard queue <name>")'),
});

function toSeconds(value: unknown, ctx: z.RefinementCtx, minimum: number, orNone: boolean): number {
  const parsed = parseDuration(value);
  if (parsed.ok && parsed.seconds >= minimum) return parsed.seconds;
  const message = parsed.ok
    ? `expected a duration of ${minimum}s or more${orNone ? ', or null for none' : ''}, found ${describeValue(value)}`
    : parsed.message;
  ctx.addIssue({ code: 'custom', message, input: value });
  return z.NEVER;
}

/** `30s`, `1h30m`, `2d` or a number of seconds; normalized to seconds. */
const duration = z
  .custom<string | number>(() => true)
  .transform((value, ctx) => toSeconds(value, ctx, 0, false));

/** A duration of at least 1s, or null for none. */
const optionalDuration = z
  .custom<string | number | null>(() => true)
  .transform((value, ctx) => (value === null ? null : toSeconds(value, ctx, 1, true)));

const batchSizeRange = strictMapping({
  min: integer(1, MAX_BATCH_SIZE).default(1),
  max: integer(1, MAX_BATCH_SIZE),
}).superRefine((range, ctx) => {
  if (range.min > range.max) {
    ctx.addIssue({
      code: 'custom',
      path: ['min'],
      message: `expected min ≤ max, found min ${range.min} and max ${range.max}`,
    });
  }
});

/** `4` or `{min: 1, max: 4}`; both become {min, max}. */
const batchSize = z
  .custom<number | { min?: number; max: number }>(() => true)
  .transform((value, ctx): { min: number; max: number } => {
    if (isMapping(value)) {
      const parsed = batchSizeRange.safeParse(value, { error: configErrorMap });
      if (parsed.success) return parsed.data;
      for (const issue of parsed.error.issues) {
        ctx.issues.push({ code: 'custom', message: issue.message, path: [...issue.path], input: value });
      }
      return z.NEVER;
    }
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_BATCH_SIZE) {
      return { min: value, max: value };
    }
    const expected = `an integer from 1 to ${MAX_BATCH_SIZE}, or a mapping {min, max}`;
    ctx.issues.push({ code: 'custom', message: expectedFound(expected)({ input: value }), input: value });
    return z.NEVER;
  });

/** `high` or `2500`; keeps the alias so events and status can show it. */
const priority = z
  .custom<PriorityAlias | number>(() => true)
  .transform((value, ctx): { priority: number; priority_alias: string } => {
    if (typeof value === 'string' && Object.hasOwn(PRIORITY_ALIASES, value)) {
      return { priority: PRIORITY_ALIASES[value as PriorityAlias], priority_alias: value };
    }
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 10_000) {
      const alias = Object.entries(PRIORITY_ALIASES).find(([, number]) => number === value)?.[0];
      return { priority: value, priority_alias: alias ?? String(value) };
    }
    const message = expectedFound('low, medium, high or an integer from 1 to 10000')({ input: value });
    ctx.issues.push({ code: 'custom', message, input: value });
    return z.NEVER;
  });

export const queueRuleSchema = strictMapping({
  name: queueRuleName,
  queue_conditions: conditionListSchema.prefault([]),
  // As documented: a repository whose CI check is not named `ci` must set its own.
  merge_conditions: conditionListSchema.prefault(['check-success=ci']),
  autoqueue: z.boolean().default(false),
  batch_size: batchSize.prefault(1),
  batch_max_wait_time: duration.prefault('30s'),
  checks_timeout: optionalDuration.prefault('1h'),
  max_checks_retries: integer(0).default(0),
  batch_max_failure_resolution_attempts: nullableInteger(0).default(null),
  merge_method: z.enum(['merge', 'squash', 'rebase', 'fast-forward']).default('merge'),
});

export const priorityRuleSchema = strictMapping({
  name: name('priority rule'),
  conditions: conditionListSchema,
  priority: priority.prefault('medium'),
  // Default true: a rule that exists to rush pull requests (hotfixes) should not wait for
  // running batches of lower priority; set false to rank without aborting anything.
  allow_checks_interruption: z.boolean().default(true),
}).transform(({ priority: { priority, priority_alias }, ...rule }) => ({
  ...rule,
  priority,
  priority_alias,
}));

export const partitionRuleSchema = strictMapping({
  name: name('partition rule').refine((value) => value !== DEFAULT_PARTITION_NAME, {
    error: `expected a partition name other than "${DEFAULT_PARTITION_NAME}", which is reserved for the queue without partitions`,
  }),
  conditions: conditionListSchema,
});

export const mergeQueueSchema = strictMapping({
  // 5, as in the documented example. In-place checks need 1 (docs/queue-semantics.md,
  // "Batches"), so by default batches are tested on draft PRs, up to 5 at once per partition.
  max_parallel_checks: integer(1, 128).default(5),
  skip_intermediate_results: z.boolean().default(false),
  // Without it a failed batch keeps its place and holds its lane. With it on, a failed batch steps
  // aside while it is bisected and the pull requests behind it are tested and merged without
  // waiting; its innocent pull requests go back to waiting (see app/queue/aside.ts). Off by
  // default, since they may then merge after pull requests queued behind them.
  bisect_aside: z.boolean().default(false),
  // With bisect_aside: probes per round of a bisection (default 2: cut in thirds). 1 searches by
  // halves — one probe a round, fewer runs, one more round (see app/queue/bisection.ts).
  bisect_aside_probes: z.union([z.literal(1), z.literal(2)]).optional(),
  // With bisect_aside: a failed batch of several pull requests splits at once into at most this
  // many groups, each tested on the base alone beside the line, instead of being bisected by
  // prefixes; a failing group of several splits into single pull requests. One round clears the
  // innocents of every passing group (see app/queue/split.ts). Unset: prefix bisection.
  bisect_aside_split: integer(2, 16).optional(),
  // Batches in line per partition — under test, passed or merging — default unbounded. A passed
  // batch whose pull request of several partitions waits for another partition to validate it
  // holds its lane; without a bound the lane keeps stacking batches on it, and all of them are
  // built again when anything ahead is rebuilt (see planNextBatch in app/queue/embark.ts).
  max_batches_in_line: integer(1, 128).optional(),
  reset_on_external_merge: z.enum(['always', 'never']).default('always'),
  // `adaptive`: each lane tests as many batches at once as its queue needs — one per
  // `queued_per_check` queued pull requests, up to max_parallel_checks — and pull requests in
  // several partitions go first among equals, so that their lanes test them together (see
  // app/queue/adaptive.ts). `fixed`: max_parallel_checks batches in every lane.
  mode: z.enum(['fixed', 'adaptive']).default('fixed'),
  // With mode adaptive, the one setting that trades CI for waiting: fewer queued pull requests per
  // batch under test means more batches at once (shorter waits, more runs thrown away when one fails).
  queued_per_check: integer(1, 1000).default(8),
});

/** Rule names identify rules in commands, events and statistics, so they must be unique per list. */
function uniqueNames<Rule extends { name: string }>(rules: Rule[], ctx: z.RefinementCtx, list: string): void {
  const first = new Map<string, number>();
  rules.forEach((rule, index) => {
    const earlier = first.get(rule.name);
    if (earlier === undefined) first.set(rule.name, index);
    else {
      const message = `expected a unique name, found "${rule.name}" again (already ${list}[${earlier}])`;
      ctx.addIssue({ code: 'custom', path: [index, 'name'], message });
    }
  });
}

export const trainyardConfigSchema = strictMapping({
  queue_rules: z
    .array(queueRuleSchema)
    .min(1, { error: 'expected at least one queue rule, found an empty list' })
    .superRefine((rules, ctx) => uniqueNames(rules, ctx, 'queue_rules'))
    .prefault([{ name: 'default' }]),
  priority_rules: z
    .array(priorityRuleSchema)
    .superRefine((rules, ctx) => uniqueNames(rules, ctx, 'priority_rules'))
    .default([]),
  partition_rules: z
    .array(partitionRuleSchema)
    .superRefine((rules, ctx) => uniqueNames(rules, ctx, 'partition_rules'))
    .default([]),
  merge_queue: mergeQueueSchema.prefault({}),
});

/** The file as written (durations as text, conditions as strings…). */
export type TrainyardConfigInput = z.input<typeof trainyardConfigSchema>;
/** The normalized configuration the engine reads. */
export type TrainyardConfig = z.output<typeof trainyardConfigSchema>;
export type QueueRule = z.output<typeof queueRuleSchema>;
export type PriorityRule = z.output<typeof priorityRuleSchema>;
export type PartitionRule = z.output<typeof partitionRuleSchema>;
export type MergeQueueSettings = z.output<typeof mergeQueueSchema>;

/** The configuration of a repository without `.github/trainyard.yml`: one queue rule `default`. */
export const defaultConfig: TrainyardConfig = deepFreeze(trainyardConfigSchema.parse({}));

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
