import { describe, expect, it } from 'vitest';
import { renderCheckRunSummary } from '../../../app/github/render/check-run.ts';
import type { QueuedDetails } from '../../../app/queue/effects.ts';

const waiting: QueuedDetails = {
  kind: 'queued',
  queueName: 'default',
  priorityAlias: 'medium',
  partitions: ['__default__'],
  position: 3,
  batch: null,
  paused: false,
  waitingFor: null,
  estimatedMergeAt: null,
};

const embarked: QueuedDetails = {
  ...waiting,
  position: 2,
  batch: { name: 'batch-12', phase: 'testing', pullRequests: [4, 7] },
  estimatedMergeAt: '2026-11-02T14:20:00.000Z',
};

describe('the summary of the Trainyard check run', () => {
  it('waiting for a batch', () => {
    expect(renderCheckRunSummary(waiting)).toMatchInlineSnapshot(`
      "Position 3 in queue \`default\` (priority medium, partition \`__default__\`).

      Waiting for a batch: the pull requests ahead are tested first."
    `);
  });

  it('tested in a batch, with its estimated merge time', () => {
    expect(renderCheckRunSummary(embarked)).toMatchInlineSnapshot(`
      "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: checks are running.

      Estimated merge: 2026-11-02 14:20 UTC."
    `);
  });

  it.each([
    ['preparing', 'its test branch is being prepared'],
    ['passed', 'checks passed; it merges after the batches ahead'],
    ['failed', 'checks failed; waiting for the batches ahead before it is split'],
    ['bisecting', 'checks failed; it is being split to find the failing pull request'],
    ['merging', 'merging'],
  ] as const)('a batch that is %s', (phase, words) => {
    const summary = renderCheckRunSummary({ ...embarked, batch: { ...embarked.batch!, phase } });
    expect(summary).toContain(`Tested in batch-12 with #4, #7: ${words}.`);
  });

  it('paused: says so, and no batch is waited for', () => {
    expect(renderCheckRunSummary({ ...waiting, paused: true })).toMatchInlineSnapshot(`
      "Position 3 in queue \`default\` (priority medium, partition \`__default__\`).

      The merge queue is paused: no batch starts and nothing merges until it is unpaused."
    `);
  });

  it('waiting for a conflicting pull request ahead', () => {
    expect(renderCheckRunSummary({ ...waiting, waitingFor: [4] }).split('\n\n')[1]).toMatchInlineSnapshot(
      `"Waiting for #4 to merge or leave the queue: it conflicts with it."`,
    );
  });

  it('waiting for several', () => {
    expect(renderCheckRunSummary({ ...waiting, waitingFor: [4, 9] }).split('\n\n')[1]).toMatchInlineSnapshot(
      `"Waiting for #4, #9 to merge or leave the queue: it conflicts with them."`,
    );
  });

  it('deep in a lane, the position band the title shows (published only when it changes)', () => {
    expect(renderCheckRunSummary({ ...waiting, position: 37 }).split('\n')[0]).toMatchInlineSnapshot(
      `"Position 26–50 in queue \`default\` (priority medium, partition \`__default__\`)."`,
    );
  });

  it('in several partitions, with a priority rule', () => {
    const summary = renderCheckRunSummary({ ...waiting, priorityAlias: 'high', partitions: ['web', 'api'] });
    expect(summary.split('\n')[0]).toMatchInlineSnapshot(
      `"Position 3 in queue \`default\` (priority high, partitions \`web\`, \`api\`)."`,
    );
  });

  it('merged', () => {
    expect(
      renderCheckRunSummary({ kind: 'left', merged: true, code: 'PR_MERGED', detail: null }),
    ).toMatchInlineSnapshot(`"Merged by the merge queue."`);
  });

  it('left, with why', () => {
    expect(
      renderCheckRunSummary({
        kind: 'left',
        merged: false,
        code: 'PR_MANUALLY_DEQUEUED',
        detail: 'dequeued by @alice',
      }),
    ).toMatchInlineSnapshot(`"Left the queue (\`PR_MANUALLY_DEQUEUED\`): dequeued by @alice."`);
  });

  it('left, without a detail', () => {
    expect(
      renderCheckRunSummary({ kind: 'left', merged: false, code: 'CHECKS_FAILED', detail: null }),
    ).toMatchInlineSnapshot(`"Left the queue (\`CHECKS_FAILED\`)."`);
  });

  it('an invalid configuration: each error with where it is', () => {
    expect(
      renderCheckRunSummary({
        kind: 'config_rejected',
        errors: [
          { path: '', message: 'invalid YAML: bad indentation', line: 2, column: 3 },
          {
            path: 'queue_rules[0].batch_size',
            message: 'expected an integer from 1 to 128, found 0',
            line: 3,
            column: 17,
          },
          { path: 'merge_queue', message: 'expected a mapping, found a list' },
        ],
      }),
    ).toMatchInlineSnapshot(`
      "\`.github/trainyard.yml\` on the default branch is invalid, so the last valid configuration is used until it is fixed:

      - (line 2, column 3): invalid YAML: bad indentation
      - \`queue_rules[0].batch_size\` (line 3, column 17): expected an integer from 1 to 128, found 0
      - \`merge_queue\`: expected a mapping, found a list"
    `);
  });
});
