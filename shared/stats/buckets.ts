// Statistics buckets (docs/api.md, "Statistics"): the width follows the period length,
// buckets are aligned to the Unix epoch in UTC, and a bucket's `end` is its last second.
// Pure: no clock, no I/O.

const HOUR = 3_600;
const DAY = 86_400;

/** Period length (seconds, inclusive upper bound) → bucket width (seconds), shortest first. */
export const BUCKET_WIDTH_LADDER: readonly { readonly maxPeriodSeconds: number; readonly width: number }[] = [
  { maxPeriodSeconds: 2 * DAY, width: HOUR },
  { maxPeriodSeconds: 7 * DAY, width: 4 * HOUR },
  { maxPeriodSeconds: 60 * DAY, width: DAY },
];

/** Width of the buckets for periods longer than the last rung of the ladder: 2 days. */
export const LONGEST_BUCKET_WIDTH = 2 * DAY;

/**
 * Bucket width in seconds for the period [start, end]: ≤ 2 days ⇒ 1 hour, ≤ 7 days ⇒ 4 hours,
 * ≤ 60 days ⇒ 1 day, longer ⇒ 2 days. Boundaries are inclusive (exactly 2 days ⇒ 1 hour).
 */
export function bucketWidthSeconds(start: Date, end: Date): number {
  const periodSeconds = (end.getTime() - start.getTime()) / 1000;
  const rung = BUCKET_WIDTH_LADDER.find((r) => periodSeconds <= r.maxPeriodSeconds);
  return rung ? rung.width : LONGEST_BUCKET_WIDTH;
}

/** Start of the epoch-aligned bucket of `widthSeconds` that contains `instant` (UTC). */
export function bucketStart(instant: Date, widthSeconds: number): Date {
  const widthMs = widthSeconds * 1000;
  return new Date(Math.floor(instant.getTime() / widthMs) * widthMs);
}

/** Last second of the bucket starting at `start`: start + width − 1 s. */
export function bucketEnd(start: Date, widthSeconds: number): Date {
  return new Date(start.getTime() + (widthSeconds - 1) * 1000);
}

/**
 * Starts of the epoch-aligned buckets that overlap [start, end] (both inclusive), in order.
 * The first one may begin before `start`, the last one ends at or after `end`; empty when
 * `end` is before `start`.
 */
export function bucketsBetween(start: Date, end: Date, widthSeconds: number): Date[] {
  if (!(widthSeconds > 0)) throw new RangeError(`bucket width must be positive, got ${widthSeconds}`);
  const widthMs = widthSeconds * 1000;
  const starts: Date[] = [];
  if (end.getTime() < start.getTime()) return starts;
  for (let t = bucketStart(start, widthSeconds).getTime(); t <= end.getTime(); t += widthMs) {
    starts.push(new Date(t));
  }
  return starts;
}
