import fc from 'fast-check';
import type { TrainyardConfigInput } from '../../../app/config/config.schema.ts';
import { type CiOracle, Scenario, type ShellOptions } from './scenario.ts';

/* Random runs for the property tests: actions, configurations, a seeded CI oracle, and the runner. */

const actor = { type: 'user' as const, id: 7, name: 'ops' };

export type Action =
  | { kind: 'queue'; pr: number }
  | { kind: 'dequeue'; pr: number }
  | { kind: 'push'; pr: number }
  | { kind: 'close'; pr: number }
  | { kind: 'label'; pr: number }
  | { kind: 'pause' }
  | { kind: 'unpause' }
  | { kind: 'external_push' }
  /** `partial`: the freeze holds only the pull requests labelled hotfix (the others merge through it). */
  | { kind: 'freeze'; minutes: number; partial: boolean }
  | { kind: 'unfreeze' }
  | { kind: 'wait'; minutes: number };

const pr = fc.integer({ min: 1, max: 10 });
export const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: pr.map((n) => ({ kind: 'queue' as const, pr: n })) },
  { weight: 1, arbitrary: pr.map((n) => ({ kind: 'dequeue' as const, pr: n })) },
  { weight: 1, arbitrary: pr.map((n) => ({ kind: 'push' as const, pr: n })) },
  { weight: 1, arbitrary: pr.map((n) => ({ kind: 'close' as const, pr: n })) },
  { weight: 1, arbitrary: pr.map((n) => ({ kind: 'label' as const, pr: n })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'pause' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unpause' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'external_push' as const }) },
  {
    weight: 1,
    arbitrary: fc
      .record({ minutes: fc.integer({ min: 5, max: 60 }), partial: fc.boolean() })
      .map(({ minutes, partial }) => ({ kind: 'freeze' as const, minutes, partial })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'unfreeze' as const }) },
  {
    weight: 4,
    arbitrary: fc.integer({ min: 1, max: 40 }).map((m) => ({ kind: 'wait' as const, minutes: m })),
  },
);

export const configArb: fc.Arbitrary<TrainyardConfigInput> = fc
  .record({
    min: fc.integer({ min: 1, max: 3 }),
    extra: fc.integer({ min: 0, max: 3 }),
    parallel: fc.integer({ min: 1, max: 4 }),
    retries: fc.integer({ min: 0, max: 1 }),
    cap: fc.constantFrom(null, 0, 1, 3),
    skip: fc.boolean(),
    aside: fc.boolean(),
    probes: fc.constantFrom(1 as const, 2 as const),
    split: fc.constantFrom(undefined, 2, 4),
    inLine: fc.constantFrom(undefined, 1, 3),
    reset: fc.constantFrom('always' as const, 'never' as const),
    method: fc.constantFrom('merge' as const, 'squash' as const, 'fast-forward' as const),
    partitions: fc.boolean(),
    priorities: fc.boolean(),
    wait: fc.constantFrom('0s', '30s', '5m'),
    adaptive: fc.boolean(),
    perCheck: fc.integer({ min: 1, max: 4 }),
  })
  .map((c) => ({
    queue_rules: [
      {
        name: 'default',
        batch_size: { min: c.min, max: c.min + c.extra },
        batch_max_wait_time: c.wait,
        max_checks_retries: c.retries,
        batch_max_failure_resolution_attempts: c.cap,
        checks_timeout: '30m',
        merge_method: c.method,
      },
    ],
    priority_rules: c.priorities
      ? [
          {
            name: 'hotfix',
            conditions: ['label=hotfix'],
            priority: 'high' as const,
            allow_checks_interruption: true,
          },
        ]
      : [],
    partition_rules: c.partitions
      ? [
          { name: 'web', conditions: ['files~=^web/'] },
          { name: 'api', conditions: ['files~=^api/'] },
        ]
      : [],
    merge_queue: {
      max_parallel_checks: c.parallel,
      skip_intermediate_results: c.skip,
      bisect_aside: c.aside,
      bisect_aside_probes: c.probes,
      ...(c.split === undefined ? {} : { bisect_aside_split: c.split }),
      ...(c.inLine === undefined ? {} : { max_batches_in_line: c.inLine }),
      reset_on_external_merge: c.reset,
      ...(c.adaptive ? { mode: 'adaptive' as const, queued_per_check: c.perCheck } : {}),
    },
  }));

/** A CI that fails PRs in `bad` (and flakes or hangs by a seeded hash of the tested set). */
export function randomOracle(seed: number, bad: readonly number[]): CiOracle {
  return (numbers, attempt) => {
    let h = seed ^ (attempt * 0x9e3779b1);
    for (const n of numbers) h = Math.imul(h ^ n, 0x85ebca6b) >>> 0;
    const roll = (h >>> 8) % 100;
    if (roll < 3) return 'hang';
    if (roll < 8) return 'failure';
    return numbers.some((n) => bad.includes(n)) ? 'failure' : 'success';
  };
}

const filesOf = (n: number) =>
  n % 3 === 0 ? ['web/a.ts', 'api/b.ts'] : n % 2 === 0 ? ['web/x.ts'] : ['api/y.ts'];

/** Seeded shell faults: test branches that conflict or whose draft PR cannot be opened; merges GitHub refuses. */
function faults(seed: number): Pick<ShellOptions, 'prepare' | 'merge'> {
  const roll = (text: string) => {
    let h = seed >>> 0;
    for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    return h % 100;
  };
  return {
    prepare: (effect) => {
      const r = roll(effect.key);
      const last = effect.pullRequests.at(-1)?.number ?? null;
      const failed = {
        type: 'test_branch_failed' as const,
        batchId: effect.batchId,
        attempt: effect.attempt,
        message: 'simulated',
      };
      if (r < 3) return { ...failed, reason: 'conflict_with_base' as const, pullRequest: last };
      if (r < 6) return { ...failed, reason: 'conflict_with_pull_request' as const, pullRequest: last };
      if (r < 12)
        return { ...failed, reason: 'draft_pull_request_creation_failed' as const, pullRequest: null };
      return null;
    },
    merge: (effect) =>
      roll(effect.key) < 4
        ? { type: 'merge_failed' as const, number: effect.number, reason: 'simulated refusal' }
        : null,
  };
}

export function run(
  config: TrainyardConfigInput,
  actions: Action[],
  oracle: CiOracle,
  seed = 0,
  options: { reload?: boolean } = {},
): Scenario {
  const shell = { ci: oracle, ...(seed === 0 ? {} : faults(seed)) };
  const s = new Scenario(config);
  s.reload = options.reload ?? false;
  const pushes = new Map<number, number>();
  let minute = 0;
  let base = 0;
  for (const action of actions) {
    s.runUntilIdle({ ...shell, until: `${minute}m` });
    s.at(`${minute}m`);
    applyAction(s, action, { pushes, nextBase: () => ++base });
    minute += action.kind === 'wait' ? action.minutes : 1;
  }
  s.send({ type: 'pause_cleared', by: actor });
  s.send({ type: 'freeze_deleted', id: 'f1', reason: 'done', by: actor });
  s.runUntilIdle({ ...shell, until: `${minute + 24 * 60}m` });
  return s;
}

function applyAction(
  s: Scenario,
  action: Action,
  ctx: { pushes: Map<number, number>; nextBase: () => number },
): void {
  switch (action.kind) {
    case 'queue':
      if (!s.snapshots.has(action.pr)) s.open(action.pr, { files: filesOf(action.pr) });
      s.command(action.pr, 'queue');
      return;
    case 'dequeue':
      s.command(action.pr, 'dequeue');
      return;
    case 'push': {
      if (!s.snapshots.has(action.pr)) return;
      const count = (ctx.pushes.get(action.pr) ?? 0) + 1;
      ctx.pushes.set(action.pr, count);
      s.update(action.pr, { headSha: `pr-${action.pr}-v${count}` });
      return;
    }
    case 'close':
      if (!s.snapshots.has(action.pr)) return;
      s.snapshots.delete(action.pr);
      s.send({ type: 'pull_request_closed', number: action.pr, merged: false, mergeSha: null });
      return;
    case 'label':
      if (!s.snapshots.has(action.pr)) return;
      s.update(action.pr, { labels: [{ id: 9, name: 'hotfix', color: 'ff0000', default: false }] });
      return;
    case 'pause':
      s.send({ type: 'pause_set', reason: 'maintenance', by: actor });
      return;
    case 'unpause':
      s.send({ type: 'pause_cleared', by: actor });
      return;
    case 'external_push':
      s.send({ type: 'base_branch_moved', branch: 'main', sha: `external-${ctx.nextBase()}` });
      return;
    case 'freeze': {
      const start = new Date(s.now).toISOString();
      const end = new Date(s.now + action.minutes * 60_000).toISOString();
      const freeze = {
        id: 'f1',
        reason: 'release',
        start,
        end,
        timezone: 'UTC',
        matchingConditions: action.partial ? ['label=hotfix'] : [],
        excludeConditions: [],
      };
      s.send({ type: 'freeze_saved', freeze, by: actor });
      return;
    }
    case 'unfreeze':
      s.send({ type: 'freeze_deleted', id: 'f1', reason: 'over', by: actor });
      return;
    case 'wait':
      return;
  }
}
