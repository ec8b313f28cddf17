import { renderCheckRunTitle } from '../../../app/github/render/check-run.ts';
import { renderReply } from '../../../app/github/render/comment.ts';
import type { Effect } from '../../../app/queue/effects.ts';
import type { QueueInput } from '../../../app/queue/inputs.ts';
import type { NewEvent } from '../../../shared/schemas/event.schema.ts';

/*
 * One line per input, effect and event: what a reviewer needs to follow a scenario in a diff.
 * Check runs and comments read as GitHub shows them (their first line), in the shell's words.
 */

export function renderOffset(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}

const prs = (numbers: readonly number[]) => numbers.map((n) => `#${n}`).join(',');
const nameOf = (names: ReadonlyMap<string, string>, id: string | null) =>
  id === null ? '-' : (names.get(id) ?? id);

export function renderInput(input: QueueInput, names: ReadonlyMap<string, string>): string {
  switch (input.type) {
    case 'pull_request_updated':
      return `pull_request_updated #${input.pullRequest.number} head=${input.pullRequest.headSha}`;
    case 'pull_request_closed':
      return `pull_request_closed #${input.number}${input.merged ? ' merged' : ''}`;
    case 'command_received':
      return `command ${input.command}${input.queueName === null ? '' : ` ${input.queueName}`} #${input.number}${input.authorized ? '' : ` by @${input.author.login} (no write access)`}`;
    case 'command_not_understood':
      return `command_not_understood #${input.number}`;
    case 'checks_reported':
      return `checks_reported ${input.sha} ${input.checks.map((c) => `${c.name}=${c.state}`).join(' ')}`;
    case 'test_branch_prepared':
      return `test_branch_prepared ${nameOf(names, input.batchId)} (attempt ${input.attempt}) sha=${input.sha}`;
    case 'test_branch_failed':
      return `test_branch_failed ${nameOf(names, input.batchId)} ${input.reason}${input.pullRequest === null ? '' : ` #${input.pullRequest}`}`;
    case 'merge_completed':
      return `merge_completed #${input.number} sha=${input.sha}`;
    case 'merge_failed':
      return `merge_failed #${input.number} ${input.reason}`;
    case 'base_branch_moved':
      return `base_branch_moved ${input.branch}=${input.sha}`;
    case 'base_branch_deleted':
      return `base_branch_deleted ${input.branch}`;
    case 'config_changed':
      return 'config_changed';
    case 'config_rejected':
      return `config_rejected (${input.errors.length} errors)`;
    case 'pause_set':
      return `pause_set "${input.reason}"`;
    case 'pause_cleared':
      return 'pause_cleared';
    case 'freeze_saved':
      return `freeze_saved ${input.freeze.id} ${input.freeze.start}..${input.freeze.end ?? '∞'}`;
    case 'freeze_deleted':
      return `freeze_deleted ${input.id}`;
    case 'dequeue_requested':
      return `dequeue_requested #${input.number} by ${input.by.name}`;
    case 'requeue_requested':
      return `requeue_requested #${input.number}${input.queueName ? ` ${input.queueName}` : ''} by ${input.by.name}`;
    case 'effect_failed':
      return `effect_failed ${input.key}`;
    case 'base_tree_read':
      return `base_tree_read ${nameOf(names, input.batchId)} ${input.base}=${input.headSha} tree=${input.treeSha}`;
    case 'tick':
      return 'tick';
  }
}

export function renderEffect(effect: Effect, names: ReadonlyMap<string, string>, start: number): string {
  switch (effect.type) {
    case 'prepare_test_branch': {
      const numbers = effect.pullRequests.map((p) => p.number);
      return `→ prepare_test_branch ${nameOf(names, effect.batchId)} [${prs(numbers)}]${effect.attempt > 1 ? ` attempt ${effect.attempt}` : ''}`;
    }
    case 'update_pr_in_place':
      return `→ update_pr_in_place ${nameOf(names, effect.batchId)} #${effect.number}`;
    case 'close_draft_pr':
      return `→ close_draft_pr ${nameOf(names, effect.batchId)}`;
    case 'merge_pr':
      return `→ merge_pr #${effect.number} (${effect.method})`;
    case 'fast_forward_base':
      return `→ fast_forward_base ${effect.base} to ${effect.sha} [${prs(effect.numbers)}]`;
    case 'verify_merge':
      return `→ verify_merge ${nameOf(names, effect.batchId)} ${effect.base} tested=${effect.testedSha}`;
    case 'publish_check_run':
      return `→ check_run #${effect.number} ${effect.status}: ${renderCheckRunTitle(effect.details)}`;
    case 'post_comment':
      return `→ comment #${effect.number}: ${renderReply(effect.reply).split('\n')[0]}`;
    case 'react_to_comment':
      return `→ react ${effect.content}`;
    case 'cancel_checks':
      return `→ cancel_checks ${nameOf(names, effect.batchId)}`;
    case 'read_pull_request':
      return `→ read_pull_request #${effect.number}`;
    case 'schedule_wake_up':
      return `→ wake_up at ${renderOffset(Date.parse(effect.at) - start)}`;
  }
}

export function renderEvent(event: NewEvent, names: ReadonlyMap<string, string>): string {
  const pr = event.pull_request === null ? '' : ` #${event.pull_request}`;
  const head = `${event.type}${pr}`;
  switch (event.type) {
    case 'action.queue.checks_start':
      return `${head} ${nameOf(names, event.metadata.train_car_id)} [${prs(event.metadata.pull_request_numbers)}]`;
    case 'action.queue.checks_end': {
      const m = event.metadata;
      const end = m.aborted ? `${m.abort_code} ${m.abort_status}` : m.checks_conclusion;
      return `${head} ${nameOf(names, m.train_car_id)} ${end}${m.retry_attempt === null ? '' : ` retry ${m.retry_attempt}/${m.max_retries}`}`;
    }
    case 'action.queue.leave':
      return `${head} ${event.metadata.reason.split(':')[0]}${event.metadata.merged ? ' merged' : ''}`;
    case 'action.queue.change':
      return `${head} ${event.metadata.partition_name} size=${event.metadata.size}`;
    case 'action.queue.checks.change':
      return `${head} ${event.metadata.partition_name} running=${event.metadata.running_checks}`;
    case 'action.queue.batch_bisection_start':
      return `${head} depth=${event.metadata.bisection_depth} sub_batches=${event.metadata.number_of_sub_batches} size=${event.metadata.batch_size_before_split}`;
    case 'action.queue.batch_bisection_end': {
      const m = event.metadata;
      return `${head} culprits=[${prs(m.culprit_pr_numbers)}] remaining=[${prs(m.remaining_pr_numbers)}]${m.max_failure_resolution_reached ? ' cap reached' : ''}`;
    }
    case 'action.queue.checks_not_started':
      return `${head} ${event.metadata.reason.split(':')[0]}`;
    default:
      return head;
  }
}
