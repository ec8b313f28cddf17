import { describeValue } from './describe-value.ts';

export type DurationResult = { ok: true; seconds: number } | { ok: false; message: string };

/** Largest accepted duration: far above any sensible timeout, far below what breaks Date arithmetic. */
export const MAX_DURATION_SECONDS = 365 * 86_400;

const UNITS = ['d', 'h', 'm', 's'] as const;
type Unit = (typeof UNITS)[number];
const UNIT_SECONDS: Record<Unit, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };
const EXAMPLES = 'such as 30s, 5m, 1h30m or 2d';
const PART = /(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*/y;

/**
 * Parses a duration — `30s`, `1h30m`, `2d`, or a plain whole number of seconds — into seconds.
 * Units go from the largest to the smallest, each at most once. The engine counts whole seconds,
 * so milliseconds and fractions are refused rather than rounded.
 */
export function parseDuration(value: unknown): DurationResult {
  if (typeof value === 'number') return parseSeconds(value);
  if (typeof value !== 'string') return expected(value);
  const text = value.trim();
  if (/^\d+$/.test(text)) return parseSeconds(Number(text));
  if (text.startsWith('-')) return fail(`expected a duration of 0s or more, found ${describeValue(value)}`);
  let seconds = 0;
  let previous = -1;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const start = PART.lastIndex;
    const match = PART.exec(text);
    if (match === null || match.index !== start) return expected(value);
    const [, amount = '', rawUnit = ''] = match;
    const unit = rawUnit.toLowerCase();
    if (unit === 'ms') {
      return fail(
        `milliseconds are not supported (durations are whole seconds), found ${describeValue(value)}`,
      );
    }
    if (!isUnit(rawUnit)) {
      return fail(`unknown unit "${rawUnit}" in ${describeValue(value)}; use s, m, h or d (${EXAMPLES})`);
    }
    if (amount.includes('.')) {
      return fail(
        `expected whole numbers in a duration (write 1h30m, not 1.5h), found ${describeValue(value)}`,
      );
    }
    const rank = UNITS.indexOf(rawUnit);
    if (rank <= previous) {
      return fail(
        `expected units from the largest to the smallest, each once (e.g. 1h30m), found ${describeValue(value)}`,
      );
    }
    previous = rank;
    seconds += Number(amount) * UNIT_SECONDS[rawUnit];
  }
  if (previous === -1) return expected(value);
  return withinLimit(seconds, value);
}

/** Renders seconds the way a user writes them: 5400 → `1h30m`, 0 → `0s`. */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  let rest = seconds;
  let text = '';
  for (const unit of UNITS) {
    const amount = Math.floor(rest / UNIT_SECONDS[unit]);
    if (amount > 0) text += `${amount}${unit}`;
    rest -= amount * UNIT_SECONDS[unit];
  }
  return text;
}

function parseSeconds(value: number): DurationResult {
  if (!Number.isInteger(value)) {
    return fail(
      `expected a whole number of seconds or a duration ${EXAMPLES}, found ${describeValue(value)}`,
    );
  }
  if (value < 0) return fail(`expected a duration of 0s or more, found ${describeValue(value)}`);
  return withinLimit(value, value);
}

function withinLimit(seconds: number, found: unknown): DurationResult {
  if (seconds > MAX_DURATION_SECONDS) {
    return fail(`expected a duration of at most 365d, found ${describeValue(found)}`);
  }
  return { ok: true, seconds };
}

function isUnit(unit: string): unit is Unit {
  return (UNITS as readonly string[]).includes(unit);
}

function expected(found: unknown): DurationResult {
  return fail(`expected a duration ${EXAMPLES}, found ${describeValue(found)}`);
}

function fail(message: string): DurationResult {
  return { ok: false, message };
}
