import type { NewEvent } from '../../shared/schemas/event.schema.ts';
import { evaluateConditions } from '../config/conditions/evaluate-conditions.ts';
import { parseConditionList } from '../config/conditions/parse-conditions.ts';
import { computeFacts } from './facts.ts';
import type { Freeze, FreezeDeleted, FreezeSaved } from './inputs.ts';
import type { FreezeRecord, QueueState, Session } from './state.ts';
import type { Transition } from './transition.ts';

/** A freeze is active from `start` (inclusive) to `end` (exclusive; none: until deleted). */
export function isFreezeActive(freeze: Freeze, now: Date): boolean {
  const at = now.getTime();
  return Date.parse(freeze.start) <= at && (freeze.end === null || at < Date.parse(freeze.end));
}

/** Whether an active freeze holds this pull request's merge: it matches and is not excluded. */
export function isFrozen(state: QueueState, number: number, now: Date): boolean {
  const pr = state.pullRequests[String(number)];
  if (pr === undefined) return false;
  return state.freezes.some(({ freeze }) => {
    if (!isFreezeActive(freeze, now)) return false;
    const facts = computeFacts(pr);
    const holds = (conditions: string[], ifEmpty: boolean) => {
      if (conditions.length === 0) return ifEmpty;
      const parsed = parseConditionList(conditions);
      // Unparseable conditions freeze everything: holding a merge is the safe mistake.
      return parsed.ok ? evaluateConditions(parsed.conditions, facts, now).match : true;
    };
    return holds(freeze.matchingConditions, true) && !holds(freeze.excludeConditions, false);
  });
}

/** Whether any freeze is active now (a cheap test before looking at pull requests). */
export function isAnyFreezeActive(state: QueueState, now: Date): boolean {
  return state.freezes.some(({ freeze }) => isFreezeActive(freeze, now));
}

/**
 * While a freeze is active, the pull requests it holds go after the others of their lane, in
 * queue order within each group: they cannot merge, so they must not hold back the pull
 * requests behind them (docs/queue-semantics.md, "Scheduled freezes and schedules").
 */
export function orderFrozenLast(state: QueueState, sessions: Session[], now: Date): Session[] {
  if (!isAnyFreezeActive(state, now)) return sessions;
  const free: Session[] = [];
  const frozen: Session[] = [];
  for (const session of sessions) (isFrozen(state, session.number, now) ? frozen : free).push(session);
  return frozen.length === 0 || free.length === 0 ? sessions : [...free, ...frozen];
}

/** The next instant (ms) a freeze starts or ends: the queue is re-evaluated then. */
export function computeNextFreezeChange(state: QueueState, now: Date): number | null {
  const at = now.getTime();
  const changes = state.freezes
    .flatMap(({ freeze }) => [
      Date.parse(freeze.start),
      freeze.end === null ? Number.NaN : Date.parse(freeze.end),
    ])
    .filter((instant) => Number.isFinite(instant) && instant > at);
  return changes.length === 0 ? null : Math.min(...changes);
}

function attributes(freeze: Freeze) {
  return {
    reason: freeze.reason,
    start: new Date(Date.parse(freeze.start)).toISOString(),
    end: freeze.end === null ? null : new Date(Date.parse(freeze.end)).toISOString(),
    timezone: freeze.timezone,
    matching_conditions: freeze.matchingConditions,
    exclude_conditions: freeze.excludeConditions,
  };
}

/** A freeze whose end has passed holds nothing any more: a freeze input drops it from the state. */
function isOver(freeze: Freeze, now: Date): boolean {
  return freeze.end !== null && Date.parse(freeze.end) <= now.getTime();
}

export function handleFreezeSaved(t: Transition, input: FreezeSaved): void {
  const before = t.state.freezes.find((f) => f.freeze.id === input.freeze.id);
  const record: FreezeRecord = { freeze: input.freeze };
  const others = t.state.freezes.filter((f) => f.freeze.id !== input.freeze.id && !isOver(f.freeze, t.now));
  const freezes = [...others, record].sort((a, b) => (a.freeze.id < b.freeze.id ? -1 : 1));
  t.state = { ...t.state, freezes };
  const common = { trigger: 'Scheduled freeze', pull_request: null, base_ref: null, received_at: t.nowIso };
  const event: NewEvent =
    before === undefined
      ? {
          type: 'scheduled_freeze.create',
          metadata: {
            scheduled_freeze_attributes: attributes(input.freeze),
            created_by: input.by,
            created_at: t.nowIso,
          },
          ...common,
        }
      : {
          type: 'scheduled_freeze.update',
          metadata: {
            scheduled_freeze_attributes_before: attributes(before.freeze),
            scheduled_freeze_attributes_after: attributes(input.freeze),
            updated_by: input.by,
            updated_at: t.nowIso,
          },
          ...common,
        };
  t.events.push(event);
}

export function handleFreezeDeleted(t: Transition, input: FreezeDeleted): void {
  const before = t.state.freezes.find((f) => f.freeze.id === input.id);
  if (before === undefined) return;
  const freezes = t.state.freezes.filter((f) => f.freeze.id !== input.id && !isOver(f.freeze, t.now));
  t.state = { ...t.state, freezes };
  t.events.push({
    type: 'scheduled_freeze.delete',
    metadata: {
      scheduled_freeze_attributes: attributes(before.freeze),
      reason: input.reason,
      deleted_by: input.by,
      deleted_at: t.nowIso,
    },
    trigger: 'Scheduled freeze',
    pull_request: null,
    base_ref: null,
    received_at: t.nowIso,
  });
}
