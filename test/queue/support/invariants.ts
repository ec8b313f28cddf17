import { findMergeHead, findSuspects, isAside } from '../../../app/queue/aside.ts';
import { computeProbeCount } from '../../../app/queue/bisection.ts';
import { computeLineChecks, computeRunningChecks } from '../../../app/queue/embark.ts';
import { isFrozen } from '../../../app/queue/freeze.ts';
import { orderSessions } from '../../../app/queue/ordering.ts';
import type { Session } from '../../../app/queue/state.ts';
import type { NewEvent, NewEventOf } from '../../../shared/schemas/event.schema.ts';
import type { StepRecord } from './scenario.ts';

/*
 * The eight invariants of docs/queue-semantics.md ("Invariants"), checked on a recorded run.
 * Each returns the list of violations as sentences (empty: the invariant holds), so a failing
 * property prints why.
 */

type Verdicts = ReadonlyMap<string, 'success' | 'failure'>;

/** 1. Merged only from a passing head batch whose tested commit held the PRs ahead (merged first) and itself. */
export function checkMergesAreTested(
  log: readonly StepRecord[],
  params: { verdicts: Verdicts; tested: ReadonlyMap<string, number[]>; skipIntermediate: boolean },
): string[] {
  const problems: string[] = [];
  const merged = new Set<number>();
  const requested = new Set<number>();
  for (const [i, record] of log.entries()) {
    // A refused merge may be asked again in a later session.
    if (record.input.type === 'merge_failed') requested.delete(record.input.number);
    // A step's merged events come before the next merge it asks for.
    for (const event of record.events) {
      if (event.type === 'action.queue.merged') merged.add(event.pull_request!);
      if (event.type === 'action.queue.leave') requested.delete(event.pull_request!);
    }
    for (const effect of record.effects) {
      if (effect.type !== 'merge_pr' && effect.type !== 'fast_forward_base') continue;
      const numbers = effect.type === 'merge_pr' ? [effect.number] : effect.numbers;
      for (const number of numbers) {
        if (requested.has(number)) problems.push(`step ${i}: merge of #${number} requested twice`);
        requested.add(number);
      }
      // The merging head: the first batch in line (with bisect_aside, failed batches step aside).
      const head = record.state.lanes
        .map((l) => findMergeHead(record.state.config, l))
        .find((b) => b?.id === effect.batchId);
      if (head?.phase !== 'merging') {
        problems.push(`step ${i}: merge of ${numbers} not from a merging head batch`);
        continue;
      }
      const sha = head.run.sha;
      const tested = params.tested.get(sha);
      const verdict = params.verdicts.get(sha);
      if (verdict !== 'success' && !params.skipIntermediate)
        problems.push(`step ${i}: merged ${numbers} from ${sha} that did not pass`);
      for (const number of numbers) {
        const index = tested?.indexOf(number) ?? -1;
        if (index < 0) problems.push(`step ${i}: #${number} merged but not in tested commit ${sha}`);
        const missing = (tested ?? []).slice(0, index).filter((n) => !merged.has(n) && !numbers.includes(n));
        if (missing.length > 0 && !params.skipIntermediate)
          problems.push(`step ${i}: #${number} merged before ${missing}`);
      }
    }
  }
  return problems;
}

/** 2. Nothing merges while paused or while a matching freeze is active. */
export function checkNoMergeWhileHeld(log: readonly StepRecord[]): string[] {
  const problems: string[] = [];
  for (const [i, record] of log.entries()) {
    for (const effect of record.effects) {
      if (effect.type !== 'merge_pr' && effect.type !== 'fast_forward_base') continue;
      const numbers = effect.type === 'merge_pr' ? [effect.number] : effect.numbers;
      if (record.state.pause.paused) problems.push(`step ${i}: merge of ${numbers} while paused`);
      const now = new Date(record.at);
      if (numbers.some((n) => isFrozen(record.state, n, now)))
        problems.push(`step ${i}: merge of ${numbers} while frozen`);
    }
  }
  return problems;
}

/** 3. One enter and at most one leave per session; one open session per PR; no PR lost. */
export function checkSessions(log: readonly StepRecord[]): string[] {
  const problems: string[] = [];
  const open = new Map<number, string>();
  const left = new Set<string>();
  for (const [i, record] of log.entries()) {
    for (const event of record.events) {
      if (event.type === 'action.queue.enter') {
        const { session_id } = event.metadata;
        if (open.has(event.pull_request!)) problems.push(`step ${i}: #${event.pull_request} entered twice`);
        open.set(event.pull_request!, session_id);
      }
      if (event.type === 'action.queue.leave') {
        const id = event.metadata.session_id!;
        if (left.has(id)) problems.push(`step ${i}: session ${id} left twice`);
        if (open.get(event.pull_request!) !== id)
          problems.push(`step ${i}: #${event.pull_request} left a session it was not in`);
        left.add(id);
        open.delete(event.pull_request!);
      }
    }
    const inState = Object.values(record.state.sessions)
      .map((s) => `${s.number}:${s.sessionId}`)
      .sort();
    const inEvents = [...open].map(([n, id]) => `${n}:${id}`).sort();
    if (inState.join() !== inEvents.join())
      problems.push(`step ${i}: sessions ${inState} but events say ${inEvents}`);
  }
  return problems;
}

/** 4. Within a partition, batches hold their pull requests in queue order (priority, then queued_at). */
export function checkBatchOrder(log: readonly StepRecord[]): string[] {
  const problems: string[] = [];
  for (const [i, record] of log.entries()) {
    for (const lane of record.state.lanes) {
      for (const batch of lane.batches) {
        if (batch.phase === 'merging') continue;
        const sessions = batch.numbers.map((n) => record.state.sessions[String(n)]!).filter(Boolean);
        const ordered = orderSessions(record.state.config, sessions).map((s) => s.number);
        if (ordered.join() !== sessions.map((s) => s.number).join()) {
          problems.push(`step ${i}: ${batch.name} holds ${batch.numbers}, queue order is ${ordered}`);
        }
      }
    }
  }
  return problems;
}

/**
 * 4 (continued). A new batch takes the first eligible waiting pull requests of its lane: no
 * pull request left waiting (and not held, see below) comes before one it embarked. With
 * merges only from the head, in batch order, merge order follows queue order.
 */
export function checkEmbarkOrder(log: readonly StepRecord[]): string[] {
  const problems: string[] = [];
  let known = new Set<string>();
  for (const [i, record] of log.entries()) {
    const { state } = record;
    // While a freeze is active, the pull requests it holds come after the others (they cannot
    // merge, so they must not hold anyone back); queue order within each group.
    const now = new Date(record.at);
    const frozen = (s: Session) => (isFrozen(state, s.number, now) ? 1 : 0);
    const compare = (a: Session, b: Session) => {
      const ordered = orderSessions(state.config, [a, b]);
      return frozen(a) - frozen(b) || (ordered[0] === a ? -1 : 1);
    };
    for (const lane of state.lanes) {
      const embarked = new Set(lane.batches.flatMap((b) => b.numbers));
      // Not held: a PR held for a conflict waits only while that PR is ahead of it, and a PR
      // sharing more than one partition with a held PR ahead of it is held too (one order in
      // every shared lane).
      const ordered = [
        ...orderSessions(
          state.config,
          Object.values(state.sessions).filter(
            (s) => s.base === lane.base && s.partitions.includes(lane.partition) && !embarked.has(s.number),
          ),
        ),
      ].sort((a, b) => frozen(a) - frozen(b));
      const ahead = new Set(embarked);
      // With bisect_aside, suspects (in a batch aside somewhere) are held too.
      const suspects = findSuspects(state);
      const suspect = new Set(suspects.map((s) => s.number));
      const held: Session[] = [];
      const waiting: Session[] = [];
      for (const s of ordered) {
        // A suspect is held but holds nobody back (it is re-ordered when it waits again).
        if (suspect.has(s.number)) {
          ahead.add(s.number);
          continue;
        }
        const conflictAhead = (s.waitingForAhead ?? []).some((n) => ahead.has(n));
        const sharesWithHeld = held.some(
          (h) => h.partitions.filter((p) => s.partitions.includes(p)).length > 1,
        );
        if (conflictAhead || sharesWithHeld) held.push(s);
        else waiting.push(s);
        ahead.add(s.number);
      }
      for (const batch of lane.batches) {
        if (known.has(batch.id) || batch.phase !== 'trial' || batch.trial.phase !== 'preparing') continue;
        // A group split from a failed batch re-tests pull requests that had embarked: it never merges.
        if (batch.split !== undefined) continue;
        const members = batch.numbers.map((n) => state.sessions[String(n)]).filter((m) => m !== undefined);
        if (new Set(members.map(frozen)).size > 1) {
          problems.push(`step ${i}: ${batch.name} mixes frozen and unfrozen pull requests ${batch.numbers}`);
        }
        for (const number of batch.numbers) {
          const member = state.sessions[String(number)];
          const before = member === undefined ? [] : waiting.filter((w) => compare(w, member) < 0);
          if (before.length > 0) {
            problems.push(
              `step ${i}: ${batch.name} embarked #${number} before ${before.map((w) => `#${w.number}`)}`,
            );
          }
        }
      }
    }
    known = new Set(state.lanes.flatMap((lane) => lane.batches.map((b) => b.id)));
  }
  return problems;
}

/** 5. Every started check ends exactly once (and before its session leaves). */
export function checkChecksEndOnce(log: readonly StepRecord[]): string[] {
  const problems: string[] = [];
  const running = new Set<string>();
  const ended = new Set<string>();
  for (const [i, record] of log.entries()) {
    for (const event of record.events) {
      if (event.type === 'action.queue.checks_start' || event.type === 'action.queue.checks_end') {
        const key = `${event.metadata.session_id}/${event.metadata.train_car_id}`;
        if (event.type === 'action.queue.checks_start') {
          if (running.has(key)) problems.push(`step ${i}: checks ${key} started twice`);
          running.add(key);
        } else {
          if (!running.has(key)) problems.push(`step ${i}: checks ${key} ended without running`);
          running.delete(key);
          ended.add(key);
        }
      }
      if (event.type === 'action.queue.leave') {
        const still = [...running].filter((key) => key.startsWith(`${event.metadata.session_id}/`));
        if (still.length > 0)
          problems.push(`step ${i}: #${event.pull_request} left with checks running ${still}`);
      }
    }
  }
  return problems;
}

/**
 * 6. running_checks ≤ max_parallel_checks in every partition. With bisect_aside the limit is on
 * the batches in line, and each bisection aside runs at most its probe count on top.
 */
export function checkParallelism(log: readonly StepRecord[]): string[] {
  const problems: string[] = [];
  for (const [i, record] of log.entries()) {
    const { config } = record.state;
    const max = config.merge_queue.max_parallel_checks;
    let allowed = max;
    for (const lane of record.state.lanes) {
      const running = computeLineChecks(config, lane);
      if (running > max)
        problems.push(`step ${i}: ${running} checks running in ${lane.partition} (max ${max})`);
      const aside = computeRunningChecks(lane) - running;
      // Aside: each bisection's probes, or a retry of an overtaken batch.
      const bound = lane.batches
        .filter((b) => isAside(config, b))
        .reduce((sum, b) => sum + (b.phase === 'bisecting' ? computeProbeCount(max) : 1), 0);
      if (aside > bound)
        problems.push(`step ${i}: ${aside} checks aside in ${lane.partition} (max ${bound})`);
      allowed = Math.max(allowed, max + aside);
    }
    for (const event of record.events) {
      if (event.type === 'action.queue.checks.change' && event.metadata.running_checks > allowed) {
        problems.push(`step ${i}: checks.change says ${event.metadata.running_checks} (max ${max})`);
      }
    }
  }
  return problems;
}

/** 7. The deepest bisection round, per original batch. */
export function computeBisectionDepths(events: readonly NewEvent[]): number[] {
  return events
    .filter(
      (e): e is NewEventOf<'action.queue.batch_bisection_start'> =>
        e.type === 'action.queue.batch_bisection_start',
    )
    .map((e) => e.metadata.bisection_depth);
}

export function checkAll(
  log: readonly StepRecord[],
  params: { verdicts: Verdicts; tested: ReadonlyMap<string, number[]>; skipIntermediate: boolean },
): string[] {
  return [
    ...checkMergesAreTested(log, params),
    ...checkNoMergeWhileHeld(log),
    ...checkSessions(log),
    ...checkBatchOrder(log),
    ...checkEmbarkOrder(log),
    ...checkChecksEndOnce(log),
    ...checkParallelism(log),
  ];
}
