/*
 * The offset of an IANA time zone at an instant, from the platform's time zone data (Intl): used
 * by schedule conditions, scheduled freeze times and the VS Code extension alike.
 */

const DAY_MS = 86_400_000;
const GREGORIAN_CYCLE_MS = 146_097 * DAY_MS;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Wall-clock time minus UTC at `instant`, in ms (e.g. +3_600_000 in Paris in winter). */
export function offsetMs(timezone: string, instant: number): number {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  const wholeSecond = Math.floor(instant / 1000) * 1000;
  const parts = formatter.formatToParts(wholeSecond);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  // Date.UTC reads years 0–99 as 1900–1999; shifting by a 400-year Gregorian cycle avoids that.
  const wall =
    Date.UTC(
      part('year') + 400,
      part('month') - 1,
      part('day'),
      part('hour'),
      part('minute'),
      part('second'),
    ) - GREGORIAN_CYCLE_MS;
  return wall - wholeSecond;
}
