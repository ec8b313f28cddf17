import { offsetMs } from './time-zone-offset.ts';

/*
 * Scheduled freezes give their start and end as wall-clock times of their own time zone, without
 * an offset (`2026-12-24T18:00:00` in `Europe/Paris`), as Mergify's API does; the engine keeps
 * instants. These convert between the two (docs/api.md, "Scheduled freezes").
 */

const DAY_MS = 86_400_000;

/** `YYYY-MM-DDTHH:MM[:SS[.fff]]`, `T` or a space, optionally with `Z` or `±HH:MM`. */
export const FREEZE_TIME_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * The instant (epoch ms) a freeze time names: with an offset, that instant; without one, that
 * wall-clock time in `timezone`. A time that occurs twice (clocks set back) is its first
 * occurrence; one that does not occur (clocks set forward) is read with the offset before the
 * change, which lands as far after the gap as it was into it. NaN for an impossible date.
 */
export function freezeTimeToInstant(text: string, timezone: string): number {
  const m = FREEZE_TIME_PATTERN.exec(text);
  if (m === null) return Number.NaN;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const fields = [y, mo, d, h, mi, s ?? '0'].map(Number) as [number, number, number, number, number, number];
  const ms = Math.floor(Number(`0.${fraction ?? '0'}`) * 1000);
  const wall = Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5], ms);
  const back = new Date(wall);
  // Date.UTC rolls 2026-02-30 over into March: such a date does not exist.
  if (
    fields[0] < 1970 ||
    back.getUTCFullYear() !== fields[0] ||
    back.getUTCMonth() !== fields[1] - 1 ||
    back.getUTCDate() !== fields[2] ||
    fields[3] > 23 ||
    fields[4] > 59 ||
    fields[5] > 59
  ) {
    return Number.NaN;
  }
  if (zone !== undefined) {
    if (zone === 'Z') return wall;
    const sign = zone.startsWith('-') ? -1 : 1;
    const [oh, om] = zone.slice(1).split(':').map(Number) as [number, number];
    return wall - sign * (oh * 3_600_000 + om * 60_000);
  }
  const before = offsetMs(timezone, wall - DAY_MS);
  const after = offsetMs(timezone, wall + DAY_MS);
  const matching = [wall - before, wall - after].filter((t) => t + offsetMs(timezone, t) === wall);
  return matching.length > 0 ? Math.min(...matching) : wall - before;
}

/** The wall-clock time of an instant in `timezone`, without an offset: `2026-12-24T18:00:00`. */
export function instantToFreezeTime(instant: number, timezone: string): string {
  const wall = new Date(instant + offsetMs(timezone, instant));
  const text = wall.toISOString();
  return wall.getUTCMilliseconds() === 0 ? text.slice(0, 19) : text.slice(0, 23);
}
