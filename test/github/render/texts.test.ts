import { describe, expect, it } from 'vitest';
import { renderCheckRunSummary, renderCheckRunTitle } from '../../../app/github/render/check-run.ts';
import { renderCommandProblem, renderReply } from '../../../app/github/render/comment.ts';
import { explainGithubRefusal, renderGaveUp } from '../../../app/github/render/github-trouble.ts';
import { renderDraftPullRequest, renderMergeMessage } from '../../../app/github/render/test-branch.ts';
import type { BatchPhase, CheckRunDetails, QueuedDetails } from '../../../app/queue/effects.ts';

/*
 * Every text the app writes on GitHub, rendered from representative facts (app/github/render/):
 * the "Trainyard" check run's title and summary, the replies to comments addressed to the app,
 * the merge commits and draft pull requests of test branches. A change of wording shows here as a diff.
 */

function checkRun(details: CheckRunDetails): { title: string; summary: string } {
  return { title: renderCheckRunTitle(details), summary: renderCheckRunSummary(details) };
}

const waiting: QueuedDetails = {
  kind: 'queued',
  queueName: 'default',
  priorityAlias: 'medium',
  partitions: ['__default__'],
  position: { from: 3, to: 3 },
  batch: null,
  paused: false,
  waitingFor: null,
  estimatedMergeAt: null,
};

const embarked: QueuedDetails = {
  ...waiting,
  position: { from: 2, to: 2 },
  batch: { name: 'batch-12', phase: 'testing', pullRequests: [4, 7], merged: false },
  estimatedMergeAt: '2026-11-02T14:20:00.000Z',
};

describe('the Trainyard check run of a queued pull request', () => {
  it('waiting for a batch', () => {
    expect(checkRun(waiting)).toMatchInlineSnapshot(`
      {
        "summary": "Position 3 in queue \`default\` (priority medium, partition \`__default__\`).

      Waiting for a batch: the pull requests ahead are tested first.",
        "title": "Waiting in queue default at position 3",
      }
    `);
  });

  it('deep in a lane: a band of positions (published again only when the band changes)', () => {
    expect(checkRun({ ...waiting, position: { from: 26, to: 50 } })).toMatchInlineSnapshot(`
      {
        "summary": "Position 26–50 in queue \`default\` (priority medium, partition \`__default__\`).

      Waiting for a batch: the pull requests ahead are tested first.",
        "title": "Waiting in queue default at position 26–50",
      }
    `);
  });

  it('beyond the last band', () => {
    expect(renderCheckRunTitle({ ...waiting, position: { from: 101, to: null } })).toMatchInlineSnapshot(
      `"Waiting in queue default at position over 100"`,
    );
  });

  it('in several partitions, with a priority rule', () => {
    expect(
      renderCheckRunSummary({ ...waiting, priorityAlias: 'high', partitions: ['web', 'api'] }),
    ).toMatchInlineSnapshot(`
      "Position 3 in queue \`default\` (priority high, partitions \`web\`, \`api\`).

      Waiting for a batch: the pull requests ahead are tested first."
    `);
  });

  it('waiting for a conflicting pull request ahead', () => {
    expect(checkRun({ ...waiting, waitingFor: [4] })).toMatchInlineSnapshot(`
      {
        "summary": "Position 3 in queue \`default\` (priority medium, partition \`__default__\`).

      Waiting for #4 to merge or leave the queue: it conflicts with it.",
        "title": "Waiting for #4 to leave the queue (conflict with a pull request ahead)",
      }
    `);
  });

  it('waiting for several', () => {
    expect(checkRun({ ...waiting, waitingFor: [4, 9] })).toMatchInlineSnapshot(`
      {
        "summary": "Position 3 in queue \`default\` (priority medium, partition \`__default__\`).

      Waiting for #4, #9 to merge or leave the queue: it conflicts with them.",
        "title": "Waiting for #4, #9 to leave the queue (conflict with a pull request ahead)",
      }
    `);
  });

  it('tested in a batch built by the adaptive mode: why its lane tests that many batches', () => {
    const adaptive = { depth: 3, queued: 14, perCheck: 5, ceiling: 6 };
    expect(
      checkRun({ ...embarked, batch: { ...embarked.batch!, laneDepth: adaptive } }).summary,
    ).toMatchInlineSnapshot(`
        "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

        Tested in batch-12 with #4, #7: checks are running.

        Its lane tested 3 batches at once when it was built: 14 pull requests were queued there, and the adaptive mode tests one batch per 5 queued, at most 6.

        Estimated merge: 2026-11-02 14:20 UTC."
      `);
    const alone = { depth: 1, queued: 1, perCheck: 5, ceiling: 6 };
    expect(
      checkRun({ ...embarked, batch: { ...embarked.batch!, laneDepth: alone } }).summary,
    ).toMatchInlineSnapshot(`
        "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

        Tested in batch-12 with #4, #7: checks are running.

        Its lane tested one batch at once when it was built: 1 pull request was queued there, and the adaptive mode tests one batch per 5 queued, at most 6.

        Estimated merge: 2026-11-02 14:20 UTC."
      `);
  });

  it('tested in a batch, in each phase, with its estimated merge time', () => {
    const phases: BatchPhase[] = ['preparing', 'testing', 'passed', 'failed', 'bisecting', 'merging'];
    const shown = Object.fromEntries(
      phases.map((phase) => [phase, checkRun({ ...embarked, batch: { ...embarked.batch!, phase } })]),
    );
    expect(shown).toMatchInlineSnapshot(`
      {
        "bisecting": {
          "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: checks failed; it is being split to find the failing pull request.

      Estimated merge: 2026-11-02 14:20 UTC.",
          "title": "Bisecting batch-12 to find the failing pull request",
        },
        "failed": {
          "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: checks failed; waiting for the batches ahead before it is split.

      Estimated merge: 2026-11-02 14:20 UTC.",
          "title": "Checks failed in batch-12; waiting for the batches ahead",
        },
        "merging": {
          "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: merging.

      Estimated merge: 2026-11-02 14:20 UTC.",
          "title": "Merging with batch-12",
        },
        "passed": {
          "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: checks passed; it merges after the batches ahead.

      Estimated merge: 2026-11-02 14:20 UTC.",
          "title": "Checks passed in batch-12; waiting for the batches ahead",
        },
        "preparing": {
          "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: its test branch is being prepared.

      Estimated merge: 2026-11-02 14:20 UTC.",
          "title": "Preparing the checks of batch-12",
        },
        "testing": {
          "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: checks are running.

      Estimated merge: 2026-11-02 14:20 UTC.",
          "title": "Checks running in batch-12",
        },
      }
    `);
  });

  it('merged already, while its batch merges the rest', () => {
    expect(
      renderCheckRunTitle({ ...embarked, batch: { ...embarked.batch!, phase: 'merging', merged: true } }),
    ).toMatchInlineSnapshot(`"Merged"`);
  });

  it('paused, waiting', () => {
    expect(checkRun({ ...waiting, paused: true })).toMatchInlineSnapshot(`
      {
        "summary": "Position 3 in queue \`default\` (priority medium, partition \`__default__\`).

      The merge queue is paused: no batch starts and nothing merges until it is unpaused.",
        "title": "Queue paused — Waiting in queue default at position 3",
      }
    `);
  });

  it('paused, in a batch', () => {
    expect(checkRun({ ...embarked, paused: true, estimatedMergeAt: null })).toMatchInlineSnapshot(`
      {
        "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: checks are running.

      The merge queue is paused: no batch starts and nothing merges until it is unpaused.",
        "title": "Queue paused — Checks running in batch-12",
      }
    `);
  });

  it('paused, waiting for a conflicting pull request ahead', () => {
    expect(checkRun({ ...waiting, paused: true, waitingFor: [4] })).toMatchInlineSnapshot(`
      {
        "summary": "Position 3 in queue \`default\` (priority medium, partition \`__default__\`).

      The merge queue is paused: no batch starts and nothing merges until it is unpaused.

      Waiting for #4 to merge or leave the queue: it conflicts with it.",
        "title": "Queue paused — Waiting for #4 to leave the queue (conflict with a pull request ahead)",
      }
    `);
  });

  it('while .github/trainyard.yml is invalid: each error with where it is', () => {
    expect(
      checkRun({
        kind: 'config_rejected',
        queued: waiting,
        errors: [
          { path: '', message: 'invalid YAML: bad indentation', line: 2, column: 3 },
          {
            path: 'queue_rules[0].batch_size',
            message: 'expected an integer from 1 to 128, found 0',
            line: 3,
            column: 17,
          },
          { path: 'merge_queue', message: 'expected a mapping, found a list', line: 5 },
          { path: 'merge_queue', message: 'expected a mapping, found a list' },
        ],
      }),
    ).toMatchInlineSnapshot(`
      {
        "summary": "\`.github/trainyard.yml\` on the default branch is invalid, so the last valid configuration is used until it is fixed:

      - (line 2, column 3): invalid YAML: bad indentation
      - \`queue_rules[0].batch_size\` (line 3, column 17): expected an integer from 1 to 128, found 0
      - \`merge_queue\` (line 5): expected a mapping, found a list
      - \`merge_queue\`: expected a mapping, found a list",
        "title": "Invalid .github/trainyard.yml: the last valid configuration is used — Waiting in queue default at position 3",
      }
    `);
  });

  it('while .github/trainyard.yml is invalid, in a batch', () => {
    expect(
      renderCheckRunTitle({
        kind: 'config_rejected',
        queued: embarked,
        errors: [{ path: '', message: 'invalid YAML' }],
      }),
    ).toMatchInlineSnapshot(
      `"Invalid .github/trainyard.yml: the last valid configuration is used — Checks running in batch-12"`,
    );
  });
});

describe('the Trainyard check run with its reasons and both estimates', () => {
  it('waiting for a slot, with its p50 and p90', () => {
    expect(
      checkRun({
        ...waiting,
        estimatedMergeAt: '2026-11-02T14:20:00.000Z',
        estimatedMergeAtP90: '2026-11-02T15:05:00.000Z',
        reasons: [
          {
            code: 'waiting_for_slot',
            message:
              'Waiting for a test slot: 5 batches in line in partition __default__, 5 tested at once; pull requests ahead are batched first',
            since: '2026-11-02T13:00:00.000Z',
            until: null,
            next_action: null,
          },
        ],
      }),
    ).toMatchInlineSnapshot(`
      {
        "summary": "Position 3 in queue \`default\` (priority medium, partition \`__default__\`).

      Why it waits:
      - \`waiting_for_slot\`: Waiting for a test slot: 5 batches in line in partition __default__, 5 tested at once; pull requests ahead are batched first.

      Estimated merge: 2026-11-02 14:20 UTC, by 2026-11-02 15:05 UTC in 9 cases out of 10.",
        "title": "Waiting in queue default at position 3",
      }
    `);
  });

  it('stalled: a required check never reported on the tested commit, with the likely fix', () => {
    expect(
      checkRun({
        ...embarked,
        estimatedMergeAtP90: '2026-11-02T14:40:00.000Z',
        reasons: [
          {
            code: 'check_never_reported',
            message:
              'Check ci reports on pull request heads (#4, #7) but never reported on draft pull request #9001, where 1 other check did',
            since: '2026-11-02T14:00:00.000Z',
            until: null,
            next_action:
              "Make the workflow that runs ci also run on the merge queue's test branches (push to trainyard/merge-queue/**) and on draft pull requests, or remove check-success=ci from merge_conditions",
            checks: ['ci'],
          },
        ],
      }),
    ).toMatchInlineSnapshot(`
      {
        "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: checks are running.

      Why it waits:
      - \`check_never_reported\`: Check ci reports on pull request heads (#4, #7) but never reported on draft pull request #9001, where 1 other check did. **What to do:** Make the workflow that runs ci also run on the merge queue's test branches (push to trainyard/merge-queue/**) and on draft pull requests, or remove check-success=ci from merge_conditions.

      Estimated merge: 2026-11-02 14:20 UTC, by 2026-11-02 14:40 UTC in 9 cases out of 10.",
        "title": "Stalled in batch-12: ci never reported on the tested commit",
      }
    `);
  });

  it('merge conditions naming a check never seen (configuration lint), with the batch waiting for checks', () => {
    expect(
      checkRun({
        ...embarked,
        reasons: [
          {
            code: 'unknown_check_in_conditions',
            message:
              "The merge conditions of queue rule default name a check never seen on this repository's recent commits: unit-test (seen: ci, lint)",
            since: null,
            until: null,
            next_action:
              'Check the spelling of unit-test in .github/trainyard.yml against the check names CI reports',
          },
          {
            code: 'waiting_for_checks',
            message: 'Waiting for checks ci, unit-test on batch-12',
            since: '2026-11-02T14:00:00.000Z',
            until: '2026-11-02T14:10:00.000Z',
            next_action: null,
            checks: ['ci', 'unit-test'],
          },
        ],
      }),
    ).toMatchInlineSnapshot(`
      {
        "summary": "Position 2 in queue \`default\` (priority medium, partition \`__default__\`).

      Tested in batch-12 with #4, #7: checks are running.

      Why it waits:
      - \`unknown_check_in_conditions\`: The merge conditions of queue rule default name a check never seen on this repository's recent commits: unit-test (seen: ci, lint). **What to do:** Check the spelling of unit-test in .github/trainyard.yml against the check names CI reports.
      - \`waiting_for_checks\`: Waiting for checks ci, unit-test on batch-12.

      Estimated merge: 2026-11-02 14:20 UTC.",
        "title": "Checks running in batch-12",
      }
    `);
  });

  it('left, with what to do next', () => {
    expect(
      checkRun({
        kind: 'left',
        merged: false,
        code: 'CHECKS_TIMEOUT',
        detail:
          'checks of batch-12 did not finish in time: Check ci never reported on draft pull request #9001',
        nextAction: 'Check that a workflow reports a check named exactly ci (merge_conditions name it)',
      }),
    ).toMatchInlineSnapshot(`
      {
        "summary": "Left the queue (\`CHECKS_TIMEOUT\`): checks of batch-12 did not finish in time: Check ci never reported on draft pull request #9001.

      **What to do:** Check that a workflow reports a check named exactly ci (merge_conditions name it).",
        "title": "Left the queue: CHECKS_TIMEOUT",
      }
    `);
  });
});

describe('the Trainyard check run of a pull request out of the queue', () => {
  it('merged', () => {
    expect(checkRun({ kind: 'left', merged: true, code: 'PR_MERGED', detail: null })).toMatchInlineSnapshot(`
      {
        "summary": "Merged by the merge queue.",
        "title": "Merged by the merge queue",
      }
    `);
  });

  it('left, with why', () => {
    expect(
      checkRun({ kind: 'left', merged: false, code: 'PR_MANUALLY_DEQUEUED', detail: 'dequeued by @alice' }),
    ).toMatchInlineSnapshot(`
      {
        "summary": "Left the queue (\`PR_MANUALLY_DEQUEUED\`): dequeued by @alice.",
        "title": "Left the queue: PR_MANUALLY_DEQUEUED",
      }
    `);
  });

  it('left, without a detail', () => {
    expect(
      checkRun({ kind: 'left', merged: false, code: 'CHECKS_FAILED', detail: null }),
    ).toMatchInlineSnapshot(`
      {
        "summary": "Left the queue (\`CHECKS_FAILED\`).",
        "title": "Left the queue: CHECKS_FAILED",
      }
    `);
  });

  it('merged, but the base does not hold the tested tree (merge integrity)', () => {
    const details = {
      kind: 'integrity_failed' as const,
      batch: 'batch-4',
      base: 'main',
      pullRequests: [12, 13],
      testedSha: 'a1b2c3',
      expectedTree: 'tree-tested',
      landedSha: 'd4e5f6',
      landedTree: 'tree-landed',
    };
    expect(checkRun({ ...details, partial: false })).toMatchInlineSnapshot(`
      {
        "summary": "This pull request was merged with batch-4 (#12, #13). Once they were merged, the tree of \`main\` was checked against the tree the merge queue tested, and they differ:

      - tested: tree \`tree-tested\` of commit \`a1b2c3\`
      - landed: tree \`tree-landed\` of commit \`d4e5f6\`

      Nobody else pushed to \`main\` in between, so the merge itself landed code that was not tested. The merge queue paused itself: nothing else merges until someone compares the two commits, repairs \`main\` if needed, and unpauses the queue.",
        "title": "Merged, but main is not what batch-4 tested: the merge queue is paused",
      }
    `);
    expect(checkRun({ ...details, pullRequests: [12], partial: true }).summary).toMatchInlineSnapshot(`
      "This pull request was merged with batch-4 (merged partially: a merge was refused part way) (#12). Once they were merged, the tree of \`main\` was checked against the tree the merge queue tested, and they differ:

      - tested: tree \`tree-tested\` of commit \`a1b2c3\`
      - landed: tree \`tree-landed\` of commit \`d4e5f6\`

      Nobody else pushed to \`main\` in between, so the merge itself landed code that was not tested. The merge queue paused itself: nothing else merges until someone compares the two commits, repairs \`main\` if needed, and unpauses the queue."
    `);
  });
});

describe('replies to commands', () => {
  it('from someone without write access', () => {
    expect(renderReply({ kind: 'not_authorized', login: 'mallory', command: 'queue' })).toMatchInlineSnapshot(
      `"@mallory cannot run \`queue\`: merge queue commands need write access to this repository."`,
    );
  });

  it('dequeue of a pull request that is not queued', () => {
    expect(renderReply({ kind: 'not_in_queue' })).toMatchInlineSnapshot(
      `"This pull request is not in the merge queue."`,
    );
  });

  it('queue of a pull request queued already', () => {
    expect(renderReply({ kind: 'already_queued', queueName: 'default' })).toMatchInlineSnapshot(
      `"This pull request is already queued in \`default\`."`,
    );
  });

  it('queue in a rule that does not exist', () => {
    expect(
      renderReply({
        kind: 'not_queued',
        refusal: { kind: 'unknown_rule', queueName: 'fast', rules: ['default', 'hotfix'] },
      }),
    ).toMatchInlineSnapshot(
      `"Not queued. There is no queue rule named \`fast\` (rules: \`default\`, \`hotfix\`)."`,
    );
  });

  it('queue when the conditions of a rule are not met', () => {
    expect(
      renderReply({
        kind: 'not_queued',
        refusal: {
          kind: 'conditions_not_met',
          rules: [{ name: 'default', unmet: ['label=ready', '#approved-reviews-by>=2'] }],
        },
      }),
    ).toMatchInlineSnapshot(`
      "Not queued. The queue conditions of rule \`default\` are not met:
      - \`label=ready\`
      - \`#approved-reviews-by>=2\`"
    `);
  });

  it('queue when no rule accepts it', () => {
    expect(
      renderReply({
        kind: 'not_queued',
        refusal: {
          kind: 'conditions_not_met',
          rules: [
            { name: 'default', unmet: ['label=ready'] },
            { name: 'hotfix', unmet: ['label=hotfix', 'base=release'] },
          ],
        },
      }),
    ).toMatchInlineSnapshot(`
      "Not queued. The queue conditions of rule \`default\` are not met:
      - \`label=ready\`
      The queue conditions of rule \`hotfix\` are not met:
      - \`label=hotfix\`
      - \`base=release\`"
    `);
  });

  it('queue with no queue rule to try', () => {
    expect(renderReply({ kind: 'not_queued', refusal: { kind: 'no_automatic_rule' } })).toMatchInlineSnapshot(
      `"Not queued. No queue rule accepts pull requests automatically."`,
    );
  });

  it('queue of a pull request the app has not seen yet', () => {
    expect(
      renderReply({ kind: 'not_queued', refusal: { kind: 'pull_request_not_seen' } }),
    ).toMatchInlineSnapshot(
      `"Not queued. Trainyard has not seen this pull request yet; try again in a moment."`,
    );
  });

  it('queue of a pull request GitHub says is closed, read because the app had not seen it', () => {
    expect(
      renderReply({ kind: 'not_queued', refusal: { kind: 'pull_request_not_open' } }),
    ).toMatchInlineSnapshot(
      `"Not queued. GitHub says this pull request is closed: only open pull requests can be queued. Reopen it, then comment the command again."`,
    );
  });

  it('queue of a pull request GitHub would not let the app read', () => {
    expect(
      renderReply({
        kind: 'not_queued',
        refusal: { kind: 'pull_request_unreadable', reason: 'GitHub answered 404 (Not Found)' },
      }),
    ).toMatchInlineSnapshot(
      `"Not queued. Trainyard could not read this pull request from GitHub (GitHub answered 404 (Not Found)). Comment the command again in a few minutes; if this answer comes back, check that the app is installed on this repository with read access to pull requests."`,
    );
  });

  it("a comment that is not a command: the shell's words, as they are", () => {
    const text = renderCommandProblem({ kind: 'missing_command' }, { appSlug: 'trainyard' });
    expect(renderReply({ kind: 'command_not_understood', text })).toBe(text);
  });
});

describe('replies to comments that are not commands', () => {
  const slug = { appSlug: 'trainyard' };

  it('the mention alone, with the commands', () => {
    expect(renderCommandProblem({ kind: 'missing_command' }, slug)).toMatchInlineSnapshot(`
      "\`@trainyard\` needs a command.

      Commands:
      - \`@trainyard queue [rule]\`: queue this pull request (in \`rule\`, or the first queue rule that accepts it)
      - \`@trainyard dequeue\`: take it out of the queue
      - \`@trainyard requeue [rule]\`: queue it again after it left the queue
      - \`@trainyard refresh\`: publish its Trainyard check run again"
    `);
  });

  it('an unknown word with a likely meaning', () => {
    const problem = { kind: 'unknown_command', word: 'queu', suggestion: 'queue' } as const;
    expect(renderCommandProblem(problem, slug).split('\n')[0]).toMatchInlineSnapshot(
      `"\`queu\` is not a command. Did you mean \`@trainyard queue\`?"`,
    );
  });

  it('an unknown word without one', () => {
    const problem = { kind: 'unknown_command', word: 'merge', suggestion: null } as const;
    expect(renderCommandProblem(problem, slug).split('\n')[0]).toMatchInlineSnapshot(
      `"\`merge\` is not a command."`,
    );
  });

  it('an argument to a command that takes none', () => {
    const problem = { kind: 'unexpected_argument', command: 'refresh', argument: 'now' } as const;
    expect(renderCommandProblem(problem, slug).split('\n')[0]).toMatchInlineSnapshot(
      `"\`refresh\` takes no argument: \`now\` is one too many."`,
    );
  });

  it('a second argument to queue', () => {
    const problem = { kind: 'unexpected_argument', command: 'queue', argument: 'please' } as const;
    expect(renderCommandProblem(problem, slug).split('\n')[0]).toMatchInlineSnapshot(
      `"\`queue\` takes one argument, a queue rule name: \`please\` is one too many."`,
    );
  });

  it("the commands are listed with the app's own slug", () => {
    const reply = renderCommandProblem({ kind: 'missing_command' }, { appSlug: 'merge-train' });
    expect(reply).toContain('- `@merge-train dequeue`: take it out of the queue');
    expect(reply).not.toContain('@trainyard');
  });
});

describe('merge commits on a test branch', () => {
  it('name the pull request merged and the batch', () => {
    expect(
      renderMergeMessage(
        {
          branch: 'trainyard/batch-12',
          base: 'main',
          batchId: '0b6f1c1e-batch',
          attempt: 2,
          pullRequests: [
            { number: 4, headSha: 'a'.repeat(40) },
            { number: 7, headSha: 'b'.repeat(40) },
          ],
        },
        { number: 7, head: 'b'.repeat(40) },
      ),
    ).toMatchInlineSnapshot(`
      "Merge #7 (bbbbbbbbbbbb) into trainyard/batch-12

      Trainyard batch 0b6f1c1e-batch, attempt 2: #4, #7 on main."
    `);
  });
});

describe('the draft pull request of a batch', () => {
  const pullRequests = [4, 7, 9].map((number) => ({ number, headSha: `${number}`.repeat(40) }));

  it('names the batch and its pull requests; the body, those of the batches it is built on too', () => {
    expect(
      renderDraftPullRequest({
        base: 'main',
        pullRequests,
        draftPullRequest: { name: 'batch-12', numbers: [7, 9], queueName: 'default' },
      }),
    ).toMatchInlineSnapshot(`
      {
        "body": "Testing #4, #7, #9 on top of main (queue rule default).",
        "title": "merge queue: batch-12 — #7, #9",
      }
    `);
  });

  it('during a bisection, the sub-batch and the prefix it tests', () => {
    expect(
      renderDraftPullRequest({
        base: 'release/2.x',
        pullRequests: pullRequests.slice(0, 2),
        draftPullRequest: { name: 'batch-12.1.1', numbers: [7], queueName: 'hotfix' },
      }),
    ).toMatchInlineSnapshot(`
      {
        "body": "Testing #4, #7 on top of release/2.x (queue rule hotfix).",
        "title": "merge queue: batch-12.1.1 — #7",
      }
    `);
  });
});

describe('what GitHub does besides succeeding or refusing (render/github-trouble.ts)', () => {
  const left = (detail: string) =>
    checkRun({
      kind: 'left',
      merged: false,
      code: 'PR_UNEXPECTEDLY_FAILED_TO_MERGE',
      detail,
    } as CheckRunDetails);

  it('a merge refused by a required status check, a required review, or "up to date"', () => {
    expect(
      left('GitHub refused the merge (405): Required status check "security-scan" is expected.'),
    ).toMatchInlineSnapshot(`
      {
        "summary": "Left the queue (\`PR_UNEXPECTEDLY_FAILED_TO_MERGE\`): GitHub refused the merge (405): Required status check "security-scan" is expected..

      The base branch's protection requires the status check \`security-scan\` on the pull request itself, and it has not reported on the pull request's head. Trainyard tests on its own branch: make \`security-scan\` run on pull requests too, or drop it from the required checks, then queue the pull request again.",
        "title": "Left the queue: PR_UNEXPECTEDLY_FAILED_TO_MERGE",
      }
    `);
    expect(
      left('GitHub refused the merge (405): Required status check "ci" is failing.').summary,
    ).toMatchInlineSnapshot(`
      "Left the queue (\`PR_UNEXPECTEDLY_FAILED_TO_MERGE\`): GitHub refused the merge (405): Required status check "ci" is failing..

      The base branch's protection requires the status check \`ci\` on the pull request itself, and it fails on the pull request's head. Trainyard tests on its own branch: make \`ci\` run on pull requests too, or drop it from the required checks, then queue the pull request again."
    `);
    expect(
      left(
        'GitHub refused the merge (405): At least 2 approving reviews are required by reviewers with write access.',
      ).summary,
    ).toMatchInlineSnapshot(`
      "Left the queue (\`PR_UNEXPECTEDLY_FAILED_TO_MERGE\`): GitHub refused the merge (405): At least 2 approving reviews are required by reviewers with write access..

      The base branch's protection requires 2 approving reviews from people with write access before a merge. Have the pull request approved, then queue it again (the queue condition \`#approved-reviews-by>=2\` keeps it out of the queue until then)."
    `);
    expect(
      left('GitHub refused the merge (405): Head branch is not up to date with the base branch').summary,
    ).toMatchInlineSnapshot(`
      "Left the queue (\`PR_UNEXPECTEDLY_FAILED_TO_MERGE\`): GitHub refused the merge (405): Head branch is not up to date with the base branch.

      The base branch's protection requires branches to be up to date before merging, and the pull request's own branch does not contain the current base. Trainyard tests each batch on top of the current base, so the setting adds nothing the queue does not check: turn "Require branches to be up to date" off for the base branch, or test one pull request at a time in place (\`max_parallel_checks: 1\`, where the queue updates the pull request's branch itself)."
    `);
    expect(explainGithubRefusal('GitHub refused the merge (405): Pull Request is not mergeable')).toBeNull();
  });

  it('an effect given up after GitHub kept failing: 502, a secondary rate limit, no answer', () => {
    const last = {
      status: 502,
      githubMessage: 'Server Error',
      request: 'PUT /repos/acme/widgets/pulls/3/merge',
      rateLimited: false,
      retryAfterSeconds: null,
    };
    expect(renderGaveUp({ attempts: 10, minutes: 9.4, last })).toMatchInlineSnapshot(
      `"GitHub answered 502 (Server Error) to \`PUT /repos/acme/widgets/pulls/3/merge\` on each of 10 attempts over 9 min; Trainyard stopped retrying. Queue the pull request again once GitHub answers"`,
    );
    expect(
      renderGaveUp({
        attempts: 10,
        minutes: 12,
        last: {
          ...last,
          status: 403,
          githubMessage:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          rateLimited: true,
          retryAfterSeconds: 60,
        },
      }),
    ).toMatchInlineSnapshot(
      `"GitHub's rate limit refused the app's requests (403: You have exceeded a secondary rate limit. Please wait a few minutes before you try again.; it asked to wait 60 s) to \`PUT /repos/acme/widgets/pulls/3/merge\` on each of 10 attempts over 12 min; Trainyard stopped retrying. Queue the pull request again once GitHub answers"`,
    );
    expect(
      renderGaveUp({
        attempts: 10,
        minutes: 0.5,
        last: { ...last, status: 0, githubMessage: 'connect ECONNREFUSED' },
      }),
    ).toMatchInlineSnapshot(
      `"GitHub could not be reached (connect ECONNREFUSED) to \`PUT /repos/acme/widgets/pulls/3/merge\` on each of 10 attempts over less than a minute; Trainyard stopped retrying. Queue the pull request again once GitHub answers"`,
    );
  });
});
