import type { NewEvent, NewEventOf } from '../../shared/schemas/event.schema.ts';
import { envelope } from './queue-events.ts';
import type { Batch, Lane } from './state.ts';
import { currentLane, findSession, type Transition } from './transition.ts';

/* Events about batches and gauges rather than one session: bisection, queue size, running checks, commands. */

export interface BisectionSubject {
  queueName: string;
  base: string;
  partition: string;
  priorityRuleName: string | null;
  sessionId: string;
  originalNumbers: number[];
  firstNumber: number;
}

export function bisectionStartEvent(
  t: Transition,
  b: BisectionSubject,
  split: { sizeBeforeSplit: number; subBatches: number; depth: number },
): NewEvent {
  return envelope(
    t,
    'action.queue.batch_bisection_start',
    { number: b.firstNumber, base: b.base, trigger: `Rule: ${b.queueName}` },
    {
      queue_name: b.queueName,
      partition_name: b.partition,
      priority_rule_name: b.priorityRuleName,
      original_batch_pr_numbers: b.originalNumbers,
      batch_size_before_split: split.sizeBeforeSplit,
      number_of_sub_batches: split.subBatches,
      bisection_depth: split.depth,
      is_top_level: split.depth === 1,
      session_id: b.sessionId,
    },
  );
}

export function bisectionEndEvent(
  t: Transition,
  b: BisectionSubject,
  end: { culprits: number[]; remaining: number[]; capReached: boolean },
): NewEvent {
  return envelope(
    t,
    'action.queue.batch_bisection_end',
    { number: b.firstNumber, base: b.base, trigger: `Rule: ${b.queueName}` },
    {
      queue_name: b.queueName,
      partition_name: b.partition,
      priority_rule_name: b.priorityRuleName,
      original_batch_pr_numbers: b.originalNumbers,
      culprit_found: end.culprits.length > 0,
      culprit_pr_numbers: end.culprits,
      remaining_pr_numbers: end.remaining,
      max_failure_resolution_reached: end.capReached,
      session_id: b.sessionId,
    },
  );
}

export function queueChangeEvent(
  t: Transition,
  gauge: {
    base: string;
    partition: string;
    queueName: string;
    priorityRuleName: string | null;
    size: number;
  },
): NewEvent {
  return envelope(
    t,
    'action.queue.change',
    { number: null, base: gauge.base, trigger: `Rule: ${gauge.queueName}` },
    {
      queue_name: gauge.queueName,
      partition_name: gauge.partition,
      priority_rule_name: gauge.priorityRuleName,
      size: gauge.size,
    },
  );
}

export function checksChangeEvent(
  t: Transition,
  gauge: { base: string; partition: string; queueName: string; running: number },
): NewEvent {
  return envelope(
    t,
    'action.queue.checks.change',
    { number: null, base: gauge.base, trigger: `Rule: ${gauge.queueName}` },
    { queue_name: gauge.queueName, partition_name: gauge.partition, running_checks: gauge.running },
  );
}

export function commandEvent(
  t: Transition,
  command: {
    type: 'command.queue' | 'command.dequeue' | 'command.requeue';
    number: number;
    base: string | null;
  },
  metadata: NewEventOf<'command.queue'>['metadata'],
): NewEvent {
  const word = command.type.slice('command.'.length);
  return envelope(
    t,
    command.type,
    { number: command.number, base: command.base, trigger: `Command: ${word}` },
    metadata,
  );
}

/** Who a bisection's events are about: the failed batch, named by its first pull request's session. */
export function computeBisectionSubject(t: Transition, lane: Lane, batch: Batch): BisectionSubject {
  const first = findSession(t.state, batch.numbers[0]!);
  return {
    queueName: batch.queueName,
    base: lane.base,
    partition: lane.partition,
    priorityRuleName: first?.priorityRuleName ?? null,
    sessionId: first?.sessionId ?? batch.id,
    originalNumbers: batch.numbers,
    firstNumber: batch.numbers[0]!,
  };
}

/*
 * A split round (app/queue/split.ts) is the groups split from one failed batch. It ends, with an
 * `action.queue.batch_bisection_end` as a bisection does, once none of its groups is left in the
 * lane: each passed (its pull requests are queued again), failed (split again, or its pull request
 * left) or was aborted. Its culprits are the pull requests of the failed batch that left the queue
 * meanwhile; the rest remain.
 */
export function endSplitRoundIfDone(t: Transition, stale: Lane, group: Batch): void {
  const { split } = group;
  if (split === undefined) return;
  const lane = currentLane(t, stale);
  if (lane.batches.some((b) => b.split?.from === split.from)) return;
  const culprits = split.of.filter((n) => findSession(t.state, n) === undefined);
  const remaining = split.of.filter((n) => findSession(t.state, n) !== undefined);
  const subject = computeBisectionSubject(t, lane, { ...group, numbers: split.of });
  t.events.push(bisectionEndEvent(t, subject, { culprits, remaining, capReached: false }));
}
