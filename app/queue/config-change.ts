import type { TrainyardConfig } from '../config/config.schema.ts';
import { abortBatchesFrom } from './abort.ts';
import { forgetCheckRunTitle } from './check-runs.ts';
import { computeRunningChecks } from './embark.ts';
import { computeFacts } from './facts.ts';
import type { ConfigChanged, ConfigRejected } from './inputs.ts';
import { leaveQueue } from './leave.ts';
import { decidePartitions } from './partitions.ts';
import { decidePriority } from './priority.ts';
import { putSession, type Transition } from './transition.ts';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A new valid configuration. Sessions whose rule is gone leave (QUEUE_RULE_MISSING); batches
 * whose rule changed, or every batch when partitions or priorities changed, are rebuilt
 * (CONFIGURATION_CHANGED); fewer parallel checks stop the extra batches.
 */
export function handleConfigChanged(t: Transition, input: ConfigChanged): void {
  const before = t.state.config;
  const after = input.config;
  // Valid again: the check runs lose their errors (their titles change, so they are published).
  const { configErrors: _valid, ...state } = t.state;
  t.state = { ...state, config: after };
  for (const session of Object.values(t.state.sessions)) {
    if (!after.queue_rules.some((r) => r.name === session.queueName)) {
      leaveQueue(t, session.number, {
        code: 'QUEUE_RULE_MISSING',
        detail: `queue rule ${session.queueName} was removed`,
      });
    }
  }
  const reshaped =
    !same(before.partition_rules, after.partition_rules) ||
    !same(before.priority_rules, after.priority_rules);
  for (const lane of t.state.lanes) {
    const index = lane.batches.findIndex(
      (b) =>
        b.phase !== 'merging' && (reshaped || !same(ruleOf(before, b.queueName), ruleOf(after, b.queueName))),
    );
    if (index < 0) continue;
    const why = { code: 'CONFIGURATION_CHANGED' as const, reason: 'the merge queue configuration changed' };
    abortBatchesFrom(t, { lane, index, first: why, behind: why });
  }
  if (reshaped) reclassifySessions(t);
  if (after.merge_queue.max_parallel_checks < before.merge_queue.max_parallel_checks) stopExtraChecks(t);
}

function ruleOf(config: TrainyardConfig, name: string) {
  return config.queue_rules.find((r) => r.name === name);
}

function reclassifySessions(t: Transition): void {
  for (const session of Object.values(t.state.sessions)) {
    const pr = t.state.pullRequests[String(session.number)];
    if (pr === undefined) continue;
    const facts = computeFacts(pr);
    const partitions = decidePartitions(t.state.config, facts, t.now);
    putSession(t, { ...session, ...decidePriority(t.state.config, facts, t.now), partitions });
  }
  // Lanes of partitions nobody is in any more disappear once empty.
  t.state = { ...t.state, lanes: t.state.lanes.filter((lane) => lane.batches.length > 0) };
}

function stopExtraChecks(t: Transition): void {
  const max = t.state.config.merge_queue.max_parallel_checks;
  for (const lane of t.state.lanes) {
    if (computeRunningChecks(lane) <= max) continue;
    let running = 0;
    const index = lane.batches.findIndex((b) => {
      if (b.phase === 'trial' && (b.trial.phase === 'preparing' || b.trial.phase === 'testing')) running++;
      return running > max;
    });
    if (index < 0) continue;
    const why = {
      code: 'SPECULATIVE_CHECK_NUMBER_REDUCED' as const,
      reason: `max_parallel_checks is now ${max}`,
    };
    abortBatchesFrom(t, { lane, index, first: why, behind: why });
  }
}

/**
 * An invalid new configuration: the last valid one stays. Until a valid one comes, every queued
 * pull request's check run says so (planCheckRuns), including those queued after this; a second
 * rejection publishes its own errors.
 */
export function handleConfigRejected(t: Transition, input: ConfigRejected): void {
  t.state = { ...t.state, configErrors: input.errors };
  for (const session of Object.values(t.state.sessions)) forgetCheckRunTitle(t, session.number);
}
