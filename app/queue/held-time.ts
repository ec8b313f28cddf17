import { isWaitingForSchedule } from '../config/conditions/evaluate-conditions.ts';
import { computeFacts } from './facts.ts';
import { isFrozen } from './freeze.ts';
import { summarizeSessions } from './sessions-summary.ts';
import type { HeldTime, Session } from './state.ts';
import { putSessions, secondsBetween, type Transition } from './transition.ts';

/**
 * Opens or closes each session's freeze and schedule periods, so that the leave event can
 * say how long the pull request was held (seconds_waiting_for_freeze / _for_schedule).
 * Schedules and freezes change only at instants the engine wakes up for, so sampling at
 * every step is exact.
 */
export function planHeldTime(t: Transition): void {
  const hasFreezes = t.state.freezes.length > 0;
  const hasSchedules = t.state.config.queue_rules.some((r) =>
    JSON.stringify(r.merge_conditions).includes('"schedule"'),
  );
  if (!hasFreezes && !hasSchedules && !summarizeSessions(t.state.sessions).anyHeld) return;
  const updated: Session[] = [];
  for (const session of Object.values(t.state.sessions)) {
    const frozen = hasFreezes && isFrozen(t.state, session.number, t.now);
    const scheduled = hasSchedules && isOutsideSchedule(t, session);
    const heldFreeze = session.freeze ?? NEVER_HELD;
    const heldSchedule = session.schedule ?? NEVER_HELD;
    const freeze = toggle(heldFreeze, frozen, t);
    const schedule = toggle(heldSchedule, scheduled, t);
    if (freeze !== heldFreeze || schedule !== heldSchedule) updated.push({ ...session, freeze, schedule });
  }
  putSessions(t, updated);
}

function isOutsideSchedule(t: Transition, session: Session): boolean {
  const rule = t.state.config.queue_rules.find((r) => r.name === session.queueName);
  const pr = t.state.pullRequests[String(session.number)];
  if (rule === undefined || pr === undefined) return false;
  // Checks are assumed to pass here: only the schedule is in question.
  const facts = { ...computeFacts(pr), checkRuns: [] };
  return isWaitingForSchedule(rule.merge_conditions.filter(isScheduleOnly), facts, t.now);
}

function isScheduleOnly(node: unknown): boolean {
  return JSON.stringify(node).includes('"kind":"schedule"');
}

/** A session's held time before it was ever held (its fields are absent then). */
const NEVER_HELD: HeldTime = { seconds: 0, since: null };

function toggle(held: HeldTime, on: boolean, t: Transition): HeldTime {
  if (on && held.since === null) return { ...held, since: t.nowIso };
  if (!on && held.since !== null)
    return { seconds: held.seconds + secondsBetween(held.since, t.now), since: null };
  return held;
}
