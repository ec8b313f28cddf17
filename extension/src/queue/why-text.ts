import type {
  ConditionEvaluationJson,
  MergeQueuePullRequest,
} from '../../../shared/schemas/merge-queue-pull.schema.ts';
import type { QueueReason } from '../../../shared/schemas/queue-reason.schema.ts';
import { relativeTime } from '../time.ts';
import { ordinal } from './place-text.ts';

/** How times read in the explanation: the local clock time and how far from now. */
export interface TimeWords {
  now: Date;
  /** "Sun 29 Nov, 14:05": the local time (injected so that tests read a fixed zone). */
  at(iso: string): string;
}

export function localTimeWords(now: Date = new Date()): TimeWords {
  return {
    now,
    at: (iso) =>
      new Date(iso).toLocaleString('en-GB', {
        weekday: 'short',
        day: 'numeric',
        month: 'short',
        hour: '2-digit',
        minute: '2-digit',
      }),
  };
}

function when(iso: string, t: TimeWords): string {
  return `${t.at(iso)} (${relativeTime(iso, t.now)})`;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The conditions that fail, as written (the leaves of the tree, a `not` as a whole). */
function unmetConditions(tree: ConditionEvaluationJson): string[] {
  if (tree.match) return [];
  if (tree.subconditions.length === 0 || tree.label === 'not') return [tree.label];
  return tree.subconditions.flatMap(unmetConditions);
}

/** One reason as a few sentences: its message, since/until, the checks it is about, what to do. */
export function reasonText(reason: QueueReason, t: TimeWords): string {
  const parts = [sentence(reason.message)];
  if (reason.since) parts.push(`Since ${when(reason.since, t)}.`);
  if (reason.until) parts.push(`Expected to end by ${when(reason.until, t)}.`);
  if (reason.checks?.length) parts.push(`Checks concerned: ${reason.checks.join(', ')}.`);
  parts.push(
    reason.next_action ? `What to do: ${sentence(reason.next_action)}` : 'Nothing to do: it needs time.',
  );
  return `- ${parts.join(' ')} (\`${reason.code}\`)`;
}

/**
 * "Why is this pull request waiting?", in plain sentences (Markdown): its place, why it is there
 * (the server's reasons), when it should merge (p50 and p90), and its test with each check.
 */
export function whyWaitingText(
  view: MergeQueuePullRequest,
  context: { repository: string; title: string | null },
  t: TimeWords = localTimeWords(),
): string {
  const lines: string[] = [];
  const name = `#${view.number}${context.title ? ` ${context.title}` : ''}`;
  lines.push(`# Why is ${name} waiting?`, '');
  const rule = `queue rule "${view.queue_rule_name}"`;
  const priority = view.priority_rule_name
    ? `priority rule "${view.priority_rule_name}"`
    : 'no priority rule';
  lines.push(
    `#${view.number} is ${ordinal(view.position + 1)} in the merge queue of ${context.repository} (${rule}, ${priority}). It was queued on ${when(view.queued_at, t)}.`,
    '',
  );

  lines.push('## Why it is where it is', '');
  if (view.reasons.length === 0) lines.push('- The server gives no reason: it is simply in line.');
  for (const reason of view.reasons) lines.push(reasonText(reason, t));
  lines.push('');

  lines.push('## When it should merge', '');
  if (view.estimated_time_of_merge) {
    lines.push(`Most likely merged by ${when(view.estimated_time_of_merge, t)}: the median estimate.`);
    if (view.estimated_time_of_merge_p90)
      lines.push(
        `Late case: 9 in 10 pull requests merge by ${when(view.estimated_time_of_merge_p90, t)}: the 90th percentile, counting failures ahead.`,
      );
  } else {
    lines.push(
      'No estimate now: the queue is paused, or a frozen pull request holds it or the queue ahead of it.',
    );
  }
  lines.push('');

  lines.push('## Its test', '');
  const test = view.mergeability_check;
  if (!test) {
    lines.push('Not tested yet: it waits for a batch (or its test branch is being prepared).');
  } else {
    const where =
      test.check_type === 'in_place'
        ? 'on the pull request itself'
        : `on draft pull request #${test.queue_pull_request_number}`;
    const started = test.started_at ? `, started ${when(test.started_at, t)}` : '';
    const ended = test.ci_ended_at ? `; CI ended ${when(test.ci_ended_at, t)}` : '';
    lines.push(
      `Tested ${where}${started}${ended}. CI is ${test.ci_state}; the test is ${test.state.replaceAll('_', ' ')}.`,
    );
    if (view.checks_timeout_at) lines.push(`Its checks time out on ${when(view.checks_timeout_at, t)}.`);
    lines.push('');
    const unmet = test.conditions_evaluation ? unmetConditions(test.conditions_evaluation) : [];
    if (unmet.length) lines.push(`Merge conditions not met yet: ${unmet.join(', ')}.`, '');
    if (test.checks.length === 0) lines.push('No check has reported on the tested commit yet.');
    for (const c of test.checks)
      lines.push(`- ${c.name}: ${c.state.replaceAll('_', ' ')}${c.url ? ` — [open the run](${c.url})` : ''}`);
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
