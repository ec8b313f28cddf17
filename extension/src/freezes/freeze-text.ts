import { freezeTimeToInstant } from '../../../shared/freeze-times.ts';
import type { ScheduledFreeze } from '../../../shared/schemas/scheduled-freeze.schema.ts';
import { relativeTime } from '../time.ts';

/** A freeze now: holding merges (active) or not yet (upcoming); its start and end as instants. */
export interface FreezeWhen {
  state: 'active' | 'upcoming';
  start: Date;
  /** null: until deleted. */
  end: Date | null;
}

/** When the freeze holds, read from its wall-clock times in its own time zone. */
export function freezeWhen(freeze: ScheduledFreeze, now: Date): FreezeWhen {
  const start = new Date(freezeTimeToInstant(freeze.start, freeze.timezone));
  const end = freeze.end === null ? null : new Date(freezeTimeToInstant(freeze.end, freeze.timezone));
  return { state: start.getTime() <= now.getTime() ? 'active' : 'upcoming', start, end };
}

/** "Tue 24 Dec, 18:00": the local time of an instant (injected in tests for a fixed zone). */
export type LocalTime = (at: Date) => string;

export const localTime: LocalTime = (at) =>
  at.toLocaleString('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });

/** The row's description: "active · until Tue 24 Dec, 18:00 (in 3 hr.)", "upcoming · from … to …". */
export function freezeLine(freeze: ScheduledFreeze, now: Date, at: LocalTime = localTime): string {
  const w = freezeWhen(freeze, now);
  const end = w.end === null ? 'until deleted' : `until ${at(w.end)} (${relativeTime(w.end, now)})`;
  if (w.state === 'active') return `active · ${end}`;
  return `upcoming · from ${at(w.start)} (${relativeTime(w.start, now)}) ${w.end === null ? 'until deleted' : `to ${at(w.end)}`}`;
}

/** The tooltip: its times as set (in its time zone), and which pull requests it holds. */
export function freezeDetails(freeze: ScheduledFreeze, now: Date, at: LocalTime = localTime): string {
  const w = freezeWhen(freeze, now);
  return [
    `**${freeze.reason}**`,
    w.state === 'active'
      ? 'Active: the pull requests it holds keep testing but do not merge.'
      : 'Upcoming: merges go on until it starts.',
    `From ${freeze.start} to ${freeze.end ?? 'when deleted'} (${freeze.timezone}); here: ${at(w.start)} to ${w.end ? at(w.end) : 'when deleted'}.`,
    freeze.matching_conditions.length
      ? `Holds the pull requests matching: ${freeze.matching_conditions.join(', ')}.`
      : 'Holds every pull request.',
    freeze.exclude_conditions.length ? `Except: ${freeze.exclude_conditions.join(', ')}.` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}
