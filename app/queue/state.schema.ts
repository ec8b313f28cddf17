import { z } from 'zod';
import { checkRunFactSchema } from '../config/conditions/pull-request-facts.ts';
import type { TrainyardConfig } from '../config/config.schema.ts';
import type { Batch, QueueState } from './state.ts';

/*
 * The stored state's schema: the store parses what it loads and rejects what the engine could
 * never have produced — an unknown pull request in a batch, a pull request twice in a lane, a
 * batch in the wrong lane.
 */

const iso = z.iso.datetime({ offset: true });
const uuid = z.uuid();
const prNumber = z.int().min(1);

const configSchema = z.custom<TrainyardConfig>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { queue_rules?: unknown }).queue_rules) &&
    Array.isArray((value as { priority_rules?: unknown }).priority_rules) &&
    Array.isArray((value as { partition_rules?: unknown }).partition_rules) &&
    typeof (value as { merge_queue?: unknown }).merge_queue === 'object',
  { message: 'expected a normalized Trainyard configuration' },
);

const accountSchema = z.object({
  id: z.int(),
  login: z.string(),
  type: z.enum(['User', 'Organization', 'Bot', 'Mannequin', 'Enterprise']),
});

// The records with one entry per pull request use z.object (not strict): it parses much faster
// (the store loads them at every step) and an unknown key cannot make the state inconsistent.
const snapshotSchema = z.object({
  number: prNumber,
  title: z.string(),
  body: z.string(),
  url: z.string(),
  author: accountSchema,
  base: z.string(),
  head: z.string(),
  headSha: z.string(),
  draft: z.boolean(),
  labels: z.array(z.object({ id: z.int(), name: z.string(), color: z.string(), default: z.boolean() })),
  files: z.array(z.string()),
  checkRuns: z.array(checkRunFactSchema),
  approvedReviewsBy: z.array(z.string()),
  changesRequestedReviewsBy: z.array(z.string()),
});

const heldSchema = z.object({ seconds: z.int().min(0), since: iso.nullable() });

const sessionSchema = z.object({
  number: prNumber,
  sessionId: uuid,
  queueName: z.string(),
  base: z.string(),
  partitions: z.array(z.string()).min(1),
  priority: z.int(),
  priorityAlias: z.string(),
  priorityRuleName: z.string().nullable(),
  allowChecksInterruption: z.boolean(),
  queuedAt: iso,
  seq: z.int().min(1),
  headSha: z.string(),
  waitingForAhead: z.array(prNumber).min(1).nullable(),
  cleared: z.literal(true).optional(),
  suspect: z.literal(true).optional(),
  orderedAt: iso.optional(),
  freeze: heldSchema.optional(),
  schedule: heldSchema.optional(),
});

const checkReportSchema = z.strictObject({
  name: z.string(),
  state: checkRunFactSchema.shape.state,
  url: z.string().nullable(),
  description: z.string(),
  avatarUrl: z.string().nullable(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
});

const runSchema = z.strictObject({
  sha: z.string(),
  draftPullRequest: prNumber.nullable(),
  startedAt: iso,
  checks: z.array(checkReportSchema),
});

const attempt = z.int().min(1);
const preparing = z.strictObject({
  phase: z.literal('preparing'),
  attempt,
  failures: z.int().min(0),
  retryAt: iso.nullable(),
});
const testing = z.strictObject({ phase: z.literal('testing'), attempt, run: runSchema });
const passed = z.strictObject({ phase: z.literal('passed'), attempt, run: runSchema, endedAt: iso });
const failed = z.strictObject({
  phase: z.literal('failed'),
  attempt,
  run: runSchema,
  endedAt: iso,
  timedOut: z.boolean(),
});
const trialSchema = z.discriminatedUnion('phase', [
  z.strictObject({ phase: z.literal('waiting') }),
  preparing,
  testing,
  passed,
  failed,
]);
const batchTrialSchema = z.discriminatedUnion('phase', [preparing, testing, passed, failed]);

const subBatchSchema = z.strictObject({
  id: uuid,
  name: z.string(),
  length: z.int().min(1),
  trial: trialSchema,
});

const commonShape = {
  id: uuid,
  name: z.string(),
  queueName: z.string(),
  numbers: z.array(prNumber).min(1),
  parentNumbers: z.array(prNumber),
  parentIds: z.array(uuid),
  baseSha: z.string().nullable(),
  mode: z.enum(['draft', 'in_place']),
  createdAt: iso,
  retries: z.int().min(0),
  overtaken: z.literal(true).optional(),
};

const batchSchema = z.discriminatedUnion('phase', [
  z.strictObject({ ...commonShape, phase: z.literal('trial'), trial: batchTrialSchema }),
  z.strictObject({
    ...commonShape,
    phase: z.literal('bisecting'),
    failedRun: runSchema,
    bisection: z.strictObject({
      depth: z.int().min(1),
      lo: z.int().min(0),
      hi: z.int().min(1),
      passedPrefix: subBatchSchema.nullable(),
      subBatches: z.array(subBatchSchema),
    }),
  }),
  z.strictObject({
    ...commonShape,
    phase: z.literal('merging'),
    run: runSchema,
    merged: z.array(prNumber),
    inFlight: z.array(prNumber),
  }),
]);

const laneSchema = z.strictObject({ base: z.string(), partition: z.string(), batches: z.array(batchSchema) });

/** The state's shape; its consistency is checked apart (queueStateSchema). */
const queueStateShapeSchema = z.strictObject({
  schemaVersion: z.literal(1),
  config: configSchema,
  pullRequests: z.record(z.string(), snapshotSchema),
  sessions: z.record(z.string(), sessionSchema),
  lanes: z.array(laneSchema),
  bases: z.record(
    z.string(),
    z.strictObject({
      sha: z.string().nullable(),
      ownShas: z.array(z.string()),
      unconfirmed: z.array(z.string()).min(1).optional(),
    }),
  ),
  pause: z.discriminatedUnion('paused', [
    z.strictObject({ paused: z.literal(false) }),
    z.strictObject({ paused: z.literal(true), reason: z.string(), since: iso }),
  ]),
  freezes: z.array(
    z.strictObject({
      freeze: z.strictObject({
        id: z.string(),
        reason: z.string(),
        start: iso,
        end: iso.nullable(),
        timezone: z.string(),
        matchingConditions: z.array(z.string()),
        excludeConditions: z.array(z.string()),
      }),
    }),
  ),
  ciDurations: z.array(z.number().positive()),
  ciResults: z.array(z.boolean()),
  gauges: z.strictObject({
    sizes: z.record(z.string(), z.int().min(0)),
    running: z.record(z.string(), z.int().min(0)),
  }),
  checkRuns: z.record(z.string(), z.object({ title: z.string().nullable(), version: z.int().min(1) })),
  configErrors: z
    .array(
      z.strictObject({
        path: z.string(),
        message: z.string(),
        line: z.int().optional(),
        column: z.int().optional(),
      }),
    )
    .optional(),
  failedEffects: z
    .array(
      z.strictObject({
        key: z.string(),
        effect: z.string(),
        pullRequests: z.array(prNumber),
        message: z.string(),
        at: iso,
      }),
    )
    .optional(),
  wakeUpAt: iso.nullable(),
  counters: z.strictObject({ session: z.int().min(0), batch: z.int().min(0) }),
});

type ParseResult =
  | { success: true; data: QueueState; error?: undefined }
  | { success: false; data?: undefined; error: z.ZodError };

/**
 * The stored engine state, parsed: its shape, then its consistency (findInconsistencies). Not a
 * zod refinement: one on the whole object takes zod off its fast path, which costs far more than
 * the check itself (figures in docs/decisions/0004-state-consistency-checked-after-the-parse.md).
 */
export const queueStateSchema = {
  safeParse(value: unknown): ParseResult {
    const shaped = queueStateShapeSchema.safeParse(value);
    if (!shaped.success) return { success: false, error: shaped.error };
    const state = shaped.data as QueueState;
    const problems = findInconsistencies(state);
    if (problems.length === 0) return { success: true, data: state };
    return {
      success: false,
      error: new z.ZodError(problems.map((message) => ({ code: 'custom', message, path: [], input: value }))),
    };
  },
  parse(value: unknown): QueueState {
    const result = queueStateSchema.safeParse(value);
    if (!result.success) throw result.error;
    return result.data;
  },
};

/** What makes a well-typed state impossible; empty when consistent. */
export function findInconsistencies(state: QueueState): string[] {
  const problems: string[] = [];
  for (const [key, session] of Object.entries(state.sessions)) {
    if (key !== String(session.number)) problems.push(`session ${key} holds pull request #${session.number}`);
  }
  for (const lane of state.lanes) {
    const seen = new Set<number>();
    for (const batch of lane.batches) {
      for (const number of batch.numbers) {
        const session = state.sessions[String(number)];
        const merged = batch.phase === 'merging' && batch.merged.includes(number);
        if (session === undefined && !merged)
          problems.push(`${batch.name} holds #${number}, which is not queued`);
        else if (
          session !== undefined &&
          (session.base !== lane.base || !session.partitions.includes(lane.partition))
        ) {
          problems.push(
            `${batch.name} holds #${number}, which is not in lane ${lane.base}/${lane.partition}`,
          );
        }
        if (seen.has(number)) problems.push(`#${number} is twice in lane ${lane.base}/${lane.partition}`);
        seen.add(number);
      }
      problems.push(...checkBatchShape(batch));
    }
  }
  return problems;
}

function checkBatchShape(batch: Batch): string[] {
  if (batch.phase === 'bisecting') {
    const { lo, hi, subBatches } = batch.bisection;
    // hi = length + 1: the whole batch is not known to fail (bisect_aside, after a culprit).
    if (!(lo < hi && hi <= batch.numbers.length + 1))
      return [`${batch.name}: bisection bounds ${lo}..${hi} are wrong`];
    if (subBatches.some((s) => s.length <= lo || s.length >= hi))
      return [`${batch.name}: a probe is out of bounds`];
  }
  if (batch.phase === 'merging' && batch.merged.some((n) => !batch.numbers.includes(n))) {
    return [`${batch.name}: merged a pull request it does not hold`];
  }
  return [];
}

/** The state of a repository the engine has never seen. */
export function initialState(config: TrainyardConfig): QueueState {
  return {
    schemaVersion: 1,
    config,
    pullRequests: {},
    sessions: {},
    lanes: [],
    bases: {},
    pause: { paused: false },
    freezes: [],
    ciDurations: [],
    ciResults: [],
    gauges: { sizes: {}, running: {} },
    checkRuns: {},
    wakeUpAt: null,
    counters: { session: 0, batch: 0 },
  };
}
