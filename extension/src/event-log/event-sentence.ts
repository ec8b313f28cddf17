import type { Event } from '../../../shared/schemas/event.schema.ts';

type Meta = Record<string, unknown>;
type Renderer = (m: Meta, e: Event) => string;

const str = (v: unknown): string =>
  typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v);
const prs = (v: unknown): string =>
  Array.isArray(v) && v.length ? v.map((n) => `#${n}`).join(', ') : 'none';
const who = (v: unknown): string => {
  const o = (v ?? {}) as { name?: unknown; login?: unknown };
  return str(o.name ?? o.login) || 'someone';
};
const pr = (e: Event): string => (e.pull_request !== null ? `#${e.pull_request}` : 'A pull request');
const queue = (m: Meta): string => {
  const partition = str(m.partition_name);
  return `queue ${str(m.queue_name) || 'default'}${partition && partition !== '__default__' ? ` (partition ${partition})` : ''}`;
};
const freeze = (v: unknown): string => {
  const f = (v ?? {}) as { reason?: unknown; start?: unknown; end?: unknown };
  return `"${str(f.reason)}" from ${str(f.start)}${f.end ? ` to ${str(f.end)}` : ', open-ended'}`;
};

/** One renderer per event type the queue writes; others fall back to a generic sentence. */
const renderers: Partial<Record<Event['type'], Renderer>> = {
  'action.queue.enter': (m, e) => `${pr(e)} entered the ${queue(m)} for ${str(m.branch)}`,
  'action.queue.leave': (m, e) =>
    m.merged ? `${pr(e)} left the queue: merged` : `${pr(e)} was removed from the queue: ${str(m.reason)}`,
  'action.queue.merged': (m, e) => `${pr(e)} was merged into ${str(m.branch)}`,
  'action.queue.checks_start': (m, e) => `Checks started for ${pr(e)}: ${str(m.start_reason)}`,
  'action.queue.checks_end': (m, e) =>
    m.aborted
      ? `Checks of ${pr(e)} were stopped (${str(m.abort_code)}): ${str(m.abort_reason)}`
      : `Checks of ${pr(e)} ended${m.retry_attempt ? ` (retry ${str(m.retry_attempt)})` : ''}: ${e.outcome === 'success' ? 'passed' : 'failed'}`,
  'action.queue.checks_not_started': (m, e) => `Checks for ${pr(e)} could not start: ${str(m.reason)}`,
  'action.queue.batch_bisection_start': (m) =>
    `Batch of ${prs(m.original_batch_pr_numbers)} failed; bisecting into ${str(m.number_of_sub_batches)} probes (depth ${str(m.bisection_depth)})`,
  'action.queue.batch_bisection_end': (m) =>
    m.culprit_found
      ? `Bisection of ${prs(m.original_batch_pr_numbers)} found the culprit ${prs(m.culprit_pr_numbers)}; ${prs(m.remaining_pr_numbers)} stay queued`
      : `Bisection of ${prs(m.original_batch_pr_numbers)} ended without a culprit; ${prs(m.remaining_pr_numbers)} stay queued`,
  'action.queue.change': (m) => `The ${queue(m)} now holds ${str(m.size)} pull requests`,
  'action.queue.checks.change': (m) => `The ${queue(m)} now runs ${str(m.running_checks)} checks`,
  'command.queue': (m, e) => `${who(m.author)} queued ${pr(e)} with a command`,
  'command.dequeue': (m, e) => `${who(m.author)} dequeued ${pr(e)} with a command`,
  'command.requeue': (m, e) => `${who(m.author)} requeued ${pr(e)} with a command`,
  'queue.pause.create': (m) => `${who(m.created_by)} paused the queue: ${str(m.reason)}`,
  'queue.pause.update': (m) => `${who(m.updated_by)} changed the pause reason: ${str(m.reason)}`,
  'queue.pause.delete': (m) => `${who(m.deleted_by)} unpaused the queue`,
  'scheduled_freeze.create': (m) =>
    `${who(m.created_by)} scheduled a freeze ${freeze(m.scheduled_freeze_attributes)}`,
  'scheduled_freeze.update': (m) =>
    `${who(m.updated_by)} changed a freeze to ${freeze(m.scheduled_freeze_attributes_after)}`,
  'scheduled_freeze.delete': (m) =>
    `${who(m.deleted_by)} deleted the freeze ${freeze(m.scheduled_freeze_attributes)}${m.reason ? `: ${str(m.reason)}` : ''}`,
  'ci_insights.job_retried': (m, e) =>
    `A CI job of ${pr(e)} was retried (attempt ${str(m.retry_attempt)}, rule ${str(m.rule_name)})`,
};

/** The event as one sentence a person reads; the raw JSON stays one click away. */
export function eventSentence(event: Event): string {
  const render = renderers[event.type];
  const meta = (event.metadata ?? {}) as Meta;
  if (render) return render(meta, event);
  const what = event.type
    .replace(/^action\./, '')
    .replaceAll('.', ' ')
    .replaceAll('_', ' ');
  return event.pull_request !== null ? `${what} on #${event.pull_request}` : what;
}

/** Whether the type has its own sentence (the others get a generic one). */
export function hasSentence(type: string): boolean {
  return type in renderers;
}

/** The kind an event type belongs to, for grouping in the filter picker. */
export function eventKind(type: string): string {
  if (type.startsWith('action.queue.') || type === 'action.unqueue' || type === 'action.requeue')
    return 'Merge queue';
  if (type.startsWith('command.')) return 'Commands';
  if (type.startsWith('queue.pause.') || type.startsWith('scheduled_freeze.')) return 'Pause and freezes';
  if (type.startsWith('ci_issue.') || type.startsWith('ci_insights.')) return 'CI';
  return 'Other actions';
}
