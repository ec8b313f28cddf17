const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto', style: 'short' });

/** "3 min. ago", "in 2 hr.", "now": relative to `now`. */
export function relativeTime(iso: string | Date, now: Date = new Date()): string {
  const seconds = Math.round(
    ((typeof iso === 'string' ? Date.parse(iso) : iso.getTime()) - now.getTime()) / 1000,
  );
  if (Math.abs(seconds) < 10) return 'now';
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size || unit === 'second')
      return format.format(Math.trunc(seconds / size), unit);
  }
  return 'now';
}

/** Absolute local time for tooltips. */
export function absoluteTime(iso: string): string {
  return new Date(iso).toLocaleString();
}
