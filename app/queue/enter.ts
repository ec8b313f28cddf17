import { computeConditionsOutcome, type EvaluationTree } from '../config/conditions/evaluate-conditions.ts';
import type { QueueRule } from '../config/config.schema.ts';
import { commandEvent } from './batch-events.ts';
import { forgetCheckRunTitle } from './check-runs.ts';
import type { EntryRefusal, Reply } from './effects.ts';
import { computeFacts } from './facts.ts';
import type { CommandNotUnderstood, CommandReceived, PullRequestSnapshot } from './inputs.ts';
import { decidePartitions } from './partitions.ts';
import { decidePriority } from './priority.ts';
import { emit, enterEvent } from './queue-events.ts';
import type { Session } from './state.ts';
import { findSession, putSession, type Transition } from './transition.ts';

/** Whether a pull request may enter, and into which queue rule (or why not). */
export type EntryDecision = { kind: 'enter'; rule: QueueRule } | { kind: 'refused'; refusal: EntryRefusal };

export function decideEntry(
  t: Pick<Transition, 'state' | 'now'>,
  pr: PullRequestSnapshot,
  params: { queueName: string | null; automatic: boolean },
): EntryDecision {
  const rules = t.state.config.queue_rules;
  const facts = computeFacts(pr);
  if (params.queueName !== null) {
    const rule = rules.find((r) => r.name === params.queueName);
    if (rule === undefined) {
      const names = rules.map((r) => r.name);
      return {
        kind: 'refused',
        refusal: { kind: 'unknown_rule', queueName: params.queueName, rules: names },
      };
    }
    const { outcome, evaluation } = computeConditionsOutcome(rule.queue_conditions, facts, t.now);
    if (outcome === 'fails') return refusedBy([describeUnmet(rule, evaluation)]);
    return { kind: 'enter', rule };
  }
  const candidates = params.automatic ? rules.filter((r) => r.autoqueue) : rules;
  const failures: { name: string; unmet: string[] }[] = [];
  for (const rule of candidates) {
    const { outcome, evaluation } = computeConditionsOutcome(rule.queue_conditions, facts, t.now);
    const accepted = outcome === 'passes' || (!params.automatic && outcome === 'pending');
    if (accepted) return { kind: 'enter', rule };
    failures.push(describeUnmet(rule, evaluation));
  }
  return failures.length === 0
    ? { kind: 'refused', refusal: { kind: 'no_automatic_rule' } }
    : refusedBy(failures);
}

function refusedBy(rules: { name: string; unmet: string[] }[]): EntryDecision {
  return { kind: 'refused', refusal: { kind: 'conditions_not_met', rules } };
}

function describeUnmet(rule: QueueRule, evaluation: EvaluationTree): { name: string; unmet: string[] } {
  return { name: rule.name, unmet: collectUnmet(evaluation) };
}

function collectUnmet(tree: EvaluationTree): string[] {
  if (tree.match) return [];
  if (tree.subconditions.length === 0 || tree.label === 'not') return [tree.label];
  return tree.subconditions.flatMap(collectUnmet);
}

/** What `queue` or `requeue` would do for a pull request now: enter by a rule, or why not. */
export type RequeueDecision =
  | { kind: 'enter'; pr: PullRequestSnapshot; rule: QueueRule }
  | { kind: 'already_queued'; queueName: string }
  | { kind: 'refused'; refusal: EntryRefusal };

/**
 * The one decision behind `@trainyard queue|requeue [rule]` and the API's requeue: a pull request
 * queued already stays as it is; one the engine has not seen open (closed ones are forgotten)
 * cannot enter; otherwise the rule asked for, or the first whose queue conditions do not fail.
 * Pure on the state and the time, so the API can answer a refusal before it steps the engine.
 */
export function decideRequeue(
  t: Pick<Transition, 'state' | 'now'>,
  number: number,
  queueName: string | null,
): RequeueDecision {
  const existing = findSession(t.state, number);
  if (existing !== undefined) return { kind: 'already_queued', queueName: existing.queueName };
  const pr = t.state.pullRequests[String(number)];
  if (pr === undefined) return { kind: 'refused', refusal: { kind: 'pull_request_not_seen' } };
  const decision = decideEntry(t, pr, { queueName, automatic: false });
  return decision.kind === 'enter' ? { kind: 'enter', pr, rule: decision.rule } : decision;
}

/** Opens a session and emits its enter event. */
export function enterQueue(t: Transition, pr: PullRequestSnapshot, rule: QueueRule): Session {
  const session = openSession(t, pr, rule);
  emit(t, enterEvent(t, session));
  return session;
}

/** A new session, not yet announced: priority from the first matching priority rule, partitions from partition rules. */
function openSession(t: Transition, pr: PullRequestSnapshot, rule: QueueRule): Session {
  const facts = computeFacts(pr);
  const priority = decidePriority(t.state.config, facts, t.now);
  const seq = t.state.counters.session + 1;
  t.state = { ...t.state, counters: { ...t.state.counters, session: seq } };
  const session: Session = {
    number: pr.number,
    sessionId: t.ids.uuid(),
    queueName: rule.name,
    base: pr.base,
    partitions: decidePartitions(t.state.config, facts, t.now),
    ...priority,
    queuedAt: t.nowIso,
    seq,
    headSha: pr.headSha,
    waitingForAhead: null,
  };
  putSession(t, session);
  return session;
}

/** `@trainyard queue|requeue [rule]`, `dequeue`, `refresh`. */
export function handleCommand(t: Transition, input: CommandReceived): Session | null {
  const pr = t.state.pullRequests[String(input.number)];
  const existing = findSession(t.state, input.number);
  const base = pr?.base ?? existing?.base ?? null;
  const meta = { author: input.author, comment_id: input.commentId };
  if (!input.authorized) {
    // Recorded like any command (who asked, on which session), answered, and nothing else.
    if (input.command !== 'refresh') {
      const type = `command.${input.command}` as const;
      const session_id = existing?.sessionId ?? null;
      emit(t, commandEvent(t, { type, number: input.number, base }, { ...meta, session_id }));
    }
    reply(t, input, { kind: 'not_authorized', login: input.author.login, command: input.command }, '-1');
    return null;
  }
  if (input.command === 'refresh') {
    if (existing !== undefined) forgetCheckRunTitle(t, existing.number);
    react(t, input, '+1');
    return null;
  }
  if (input.command === 'dequeue') {
    const type = 'command.dequeue';
    emit(
      t,
      commandEvent(
        t,
        { type, number: input.number, base },
        { ...meta, session_id: existing?.sessionId ?? null },
      ),
    );
    if (existing === undefined) reply(t, input, { kind: 'not_in_queue' }, 'confused');
    else react(t, input, '+1');
    return existing ?? null;
  }
  const type = input.command === 'queue' ? 'command.queue' : 'command.requeue';
  const decision = decideRequeue(t, input.number, input.queueName);
  if (decision.kind === 'already_queued') {
    const session_id = existing?.sessionId ?? null;
    emit(t, commandEvent(t, { type, number: input.number, base }, { ...meta, session_id }));
    reply(t, input, { kind: 'already_queued', queueName: decision.queueName }, 'confused');
    return null;
  }
  if (pr === undefined && input.read === undefined) {
    // Opened before the app was installed, or its webhooks lost: GitHub is asked, then the
    // command is taken again (recorded and answered then, once).
    t.effects.push({
      type: 'read_pull_request',
      key: `read_pull_request:${input.commentId}`,
      number: input.number,
      command: input,
    });
    return null;
  }
  if (pr === undefined || decision.kind === 'refused') {
    const refusal =
      decision.kind === 'refused' && pr !== undefined ? decision.refusal : refusalAfterRead(input.read);
    emit(t, commandEvent(t, { type, number: input.number, base }, { ...meta, session_id: null }));
    reply(t, input, { kind: 'not_queued', refusal }, '-1');
    return null;
  }
  // The session is opened first so that command.queue can name it; its enter event follows.
  const session = openSession(t, decision.pr, decision.rule);
  emit(t, commandEvent(t, { type, number: input.number, base }, { ...meta, session_id: session.sessionId }));
  emit(t, enterEvent(t, session));
  react(t, input, '+1');
  return session;
}

/** Read from GitHub and still not seen: closed (or the app's own draft), or GitHub did not answer. */
function refusalAfterRead(read: CommandReceived['read']): EntryRefusal {
  const failure = read?.failure ?? null;
  return failure === null
    ? { kind: 'pull_request_not_open' }
    : { kind: 'pull_request_unreadable', reason: failure };
}

/** The shell's answer to a comment it could not read as a command, posted as it is. */
export function handleCommandNotUnderstood(t: Transition, input: CommandNotUnderstood): void {
  reply(t, input, { kind: 'command_not_understood', text: input.reply }, 'confused');
}

function react(t: Transition, input: { commentId: number }, content: '+1' | '-1' | 'confused'): void {
  t.effects.push({
    type: 'react_to_comment',
    key: `react_to_comment:${input.commentId}`,
    commentId: input.commentId,
    content,
  });
}

function reply(
  t: Transition,
  input: { number: number; commentId: number },
  answer: Reply,
  content: '-1' | 'confused',
): void {
  react(t, input, content);
  t.effects.push({
    type: 'post_comment',
    key: `post_comment:${input.commentId}`,
    number: input.number,
    reply: answer,
  });
}
