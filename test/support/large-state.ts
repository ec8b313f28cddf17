import { trainyardConfigSchema } from '../../app/config/config.schema.ts';
import { createSeededIdSource } from '../../app/queue/ids.ts';
import type { PullRequestSnapshot, QueueInput } from '../../app/queue/inputs.ts';
import { initialState } from '../../app/queue/state.schema.ts';
import type { QueueState } from '../../app/queue/state.ts';
import { step } from '../../app/queue/step.ts';

/*
 * A large engine state, as a busy monorepo has: `queued` pull requests over 10 partitions,
 * batches of 4, 5 parallel checks per partition (about 1.1 MB of JSON for 1,000). Built by the
 * pure engine with a fixed seed, so it is the same at every run.
 */

export const LARGE_STATE_PARTITIONS = 10;
const PARTITIONS = LARGE_STATE_PARTITIONS;

/** The configuration of the large state (also bench:engine's). */
export const largeStateConfig = trainyardConfigSchema.parse({
  queue_rules: [{ name: 'default', batch_size: 4, batch_max_wait_time: '0s', checks_timeout: '1h' }],
  partition_rules: Array.from({ length: PARTITIONS }, (_, i) => ({
    name: `part-${i}`,
    conditions: [`files~=^part-${i}/`],
  })),
  merge_queue: { max_parallel_checks: 5 },
});

export const largeStateAuthor = { id: 1, login: 'dev', type: 'User' as const };
const author = largeStateAuthor;

/** A typical pull request of the large state: a module and its test in one partition, CI and lint green. */
export function largeStatePullRequest(number: number): PullRequestSnapshot {
  return {
    number,
    title: `Change ${number}: a typical title of a pull request`,
    body: 'Fixes a bug. '.repeat(10),
    url: `https://github.com/acme/monorepo/pull/${number}`,
    author,
    base: 'main',
    head: `feature/change-${number}`,
    headSha: `${number.toString(16).padStart(8, '0')}${'a'.repeat(32)}`,
    draft: false,
    labels: [{ id: 1, name: 'ready', color: '00ff00', default: false }],
    files: [
      `part-${number % PARTITIONS}/src/module-${number}.ts`,
      `part-${number % PARTITIONS}/test/module-${number}.test.ts`,
    ],
    checkRuns: [
      { name: 'ci', state: 'success' },
      { name: 'lint', state: 'success' },
    ],
    approvedReviewsBy: ['reviewer'],
    changesRequestedReviewsBy: [],
  };
}

export const LARGE_STATE_TIME = new Date('2026-11-02T09:00:00Z');

export function buildLargeState(queued: number): QueueState {
  const ids = createSeededIdSource(7);
  const ctx = { now: LARGE_STATE_TIME, ids };
  let state = initialState(largeStateConfig);
  for (let number = 1; number <= queued; number++) {
    const opened: QueueInput = { type: 'pull_request_updated', pullRequest: largeStatePullRequest(number) };
    const command = {
      type: 'command_received' as const,
      number,
      command: 'queue' as const,
      queueName: null,
      author,
      commentId: number,
      authorized: true,
    };
    state = step(state, opened, ctx).state;
    state = step(state, command, ctx).state;
  }
  return state;
}
