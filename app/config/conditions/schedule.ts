/**
 * Weekly time windows such as `Mon-Fri 09:00-17:00[Europe/Paris]`, in a time zone's wall-clock
 * time. Pure: the instant is always passed in, and time zones go through Intl (no dependency).
 */

import { offsetMs } from '../../../shared/time-zone-offset.ts';

/** A weekly window: `days` are 0 (Sunday) to 6; `times` are minutes of the day, end exclusive. */
export interface Schedule {
  days: readonly number[];
  times: readonly { start: number; end: number }[];
  timezone: string;
}

/** An instant as the engine passes it: a Date or epoch milliseconds. */
export type Instant = Date | number;

export type ScheduleResult = { ok: true; schedule: Schedule } | { ok: false; message: string };

export const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const FULL_DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MINUTE_MS = 60_000;
const DAY_MS = 1_440 * MINUTE_MS;
const WEEK_MS = 7 * DAY_MS;
/** 1970-01-01, day 0 of epoch time, was a Thursday. */
const EPOCH_WEEKDAY = 4;
const EXPECTED =
  'expected days (e.g. Mon-Fri), times (e.g. 09:00-17:00) or both, then an optional [Time/Zone]';
const TIME_RANGE = /^(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})$/;

export function parseSchedule(text: string): ScheduleResult {
  let rest = text.trim().replace(/\s*([-,])\s*/g, '$1');
  let timezone = 'UTC';
  const zone = /\[([^[\]]*)\]$/.exec(rest);
  if (zone !== null) {
    const canonical = canonicalTimeZone(zone[1]!.trim());
    if (canonical === undefined)
      return fail(`unknown time zone "${zone[1]!.trim()}" (expected e.g. Europe/Paris)`);
    timezone = canonical;
    rest = rest.slice(0, zone.index).trim();
  } else if (/[[\]]/.test(rest)) {
    return fail(`expected the time zone in brackets at the end, e.g. [Europe/Paris], found "${text}"`);
  }
  if (rest === '') return fail(`${EXPECTED}, found "${text}"`);
  let days: number[] | undefined;
  let times: { start: number; end: number }[] | undefined;
  for (const part of rest.split(/\s+/)) {
    if (/^\d/.test(part) ? times !== undefined : days !== undefined)
      return fail(`${EXPECTED}, found "${text}"`);
    if (/^\d/.test(part)) {
      const parsed = parseTimes(part);
      if (typeof parsed === 'string') return fail(parsed);
      times = parsed;
    } else {
      const parsed = parseDays(part);
      if (typeof parsed === 'string') return fail(parsed);
      days = parsed;
    }
  }
  return {
    ok: true,
    schedule: { days: days ?? [0, 1, 2, 3, 4, 5, 6], times: times ?? [{ start: 0, end: 1_440 }], timezone },
  };
}

export function isWithinSchedule(schedule: Schedule, instant: Instant): boolean {
  const at = toEpochMs(instant);
  return isOpenAt(openIntervals(schedule), weekPosition(at + offsetMs(schedule.timezone, at)));
}

/**
 * The first instant after `instant` at which the schedule opens or closes, in epoch ms; null if
 * it never changes (always open). Daylight-saving shifts can open or close a window by
 * themselves (a window inside the skipped hour never opens; one in the repeated hour opens twice).
 */
export function nextScheduleChange(schedule: Schedule, instant: Instant): number | null {
  const intervals = openIntervals(schedule);
  const flips = flipPositions(intervals);
  if (flips.length === 0) return null;
  let at = toEpochMs(instant);
  const startsOpen = isOpenAt(intervals, weekPosition(at + offsetMs(schedule.timezone, at)));
  // Each round reaches the next flip or the next offset change, so a few rounds always suffice.
  for (let round = 0; round < 32; round++) {
    const offset = offsetMs(schedule.timezone, at);
    const position = weekPosition(at + offset);
    const next = flips.find((flip) => flip > position) ?? flips[0]! + WEEK_MS;
    const candidate = at + (next - position);
    const changeAt =
      offsetMs(schedule.timezone, candidate) === offset
        ? candidate
        : firstOffsetChange(schedule.timezone, at, candidate);
    const open = isOpenAt(intervals, weekPosition(changeAt + offsetMs(schedule.timezone, changeAt)));
    if (open !== startsOpen) return changeAt;
    at = changeAt;
  }
  return null;
}

/** The `schedule` object of a schedule condition's evaluation (a shape of our own: docs/api.md). */
export interface ScheduleEvaluation {
  timezone: string;
  days: string[];
  times: string[];
  is_open: boolean;
  next_change_at: string | null;
}

export function describeSchedule(schedule: Schedule, open: boolean, next: number | null): ScheduleEvaluation {
  const clock = (minutes: number) =>
    `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return {
    timezone: schedule.timezone,
    days: schedule.days.map((day) => DAY_NAMES[day]!),
    times: schedule.times.map(({ start, end }) => `${clock(start)}-${clock(end)}`),
    is_open: open,
    next_change_at: next === null ? null : new Date(next).toISOString(),
  };
}

export function toEpochMs(instant: Instant): number {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`invalid instant: ${String(instant)}`);
  return ms;
}

function parseDays(text: string): number[] | string {
  const days = new Set<number>();
  for (const item of text.split(',')) {
    const [from, to, extra] = item.split('-');
    const first = dayIndex(from ?? '');
    const last = to === undefined ? first : dayIndex(to);
    if (extra !== undefined) return `expected a day or a day range such as Mon-Fri, found "${item}"`;
    if (typeof first === 'string') return first;
    if (typeof last === 'string') return last;
    // A range may wrap around the week end: Fri-Mon is Friday to Monday.
    for (let day = first; ; day = (day + 1) % 7) {
      days.add(day);
      if (day === last) break;
    }
  }
  return [...days].sort((a, b) => a - b);
}

function dayIndex(name: string): number | string {
  const lower = name.toLowerCase();
  const index = DAY_NAMES.findIndex((day) => day.toLowerCase() === lower);
  if (index !== -1) return index;
  const full = FULL_DAY_NAMES.indexOf(lower);
  if (full !== -1) return full;
  return `unknown day "${name}" (expected Mon, Tue, Wed, Thu, Fri, Sat or Sun)`;
}

function parseTimes(text: string): { start: number; end: number }[] | string {
  const ranges: { start: number; end: number }[] = [];
  for (const item of text.split(',')) {
    const match = TIME_RANGE.exec(item);
    if (match === null) return `expected a time range such as 09:00-17:00, found "${item}"`;
    const [, h1, m1, h2, m2] = match.map(Number) as [number, number, number, number, number];
    if (h1 > 23 || m1 > 59 || h2 > 24 || m2 > 59 || (h2 === 24 && m2 !== 0)) {
      return `expected times from 00:00 to 24:00, found "${item}"`;
    }
    const start = h1 * 60 + m1;
    const end = h2 * 60 + m2;
    if (end <= start) {
      return `expected the end after the start in "${item}" (split a night window: 22:00-24:00,00:00-06:00)`;
    }
    ranges.push({ start, end });
  }
  return ranges;
}

/** The IANA name Intl knows a time zone by, or undefined when it knows none by that name. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** Offset changes happen on whole seconds: binary search for the first one in (from, to]. */
function firstOffsetChange(timezone: string, from: number, to: number): number {
  const offset = offsetMs(timezone, from);
  let low = Math.floor(from / 1000);
  let high = Math.ceil(to / 1000);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (offsetMs(timezone, middle * 1000) === offset) low = middle;
    else high = middle;
  }
  return high * 1000;
}

/** Milliseconds since Sunday 00:00 of the week, for a wall-clock time expressed as epoch ms. */
function weekPosition(wallMs: number): number {
  const days = Math.floor(wallMs / DAY_MS);
  const weekday = (((days + EPOCH_WEEKDAY) % 7) + 7) % 7;
  return weekday * DAY_MS + (wallMs - days * DAY_MS);
}

function openIntervals(schedule: Schedule): [number, number][] {
  return schedule.days.flatMap((day) =>
    schedule.times.map(({ start, end }): [number, number] => [
      day * DAY_MS + start * MINUTE_MS,
      day * DAY_MS + end * MINUTE_MS,
    ]),
  );
}

function isOpenAt(intervals: [number, number][], position: number): boolean {
  return intervals.some(([start, end]) => start <= position && position < end);
}

/** Week positions where the state really changes (adjacent windows do not close in between). */
function flipPositions(intervals: [number, number][]): number[] {
  const candidates = new Set(intervals.flatMap(([start, end]) => [start % WEEK_MS, end % WEEK_MS]));
  return [...candidates]
    .filter((p) => isOpenAt(intervals, p) !== isOpenAt(intervals, (p - 1 + WEEK_MS) % WEEK_MS))
    .sort((a, b) => a - b);
}

function fail(message: string): ScheduleResult {
  return { ok: false, message };
}
