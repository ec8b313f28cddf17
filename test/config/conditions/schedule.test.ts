import { describe, expect, it } from 'vitest';
import {
  isWithinSchedule,
  nextScheduleChange,
  parseSchedule,
  type Schedule,
} from '../../../app/config/conditions/schedule.ts';

function schedule(text: string): Schedule {
  const result = parseSchedule(text);
  if (!result.ok) throw new Error(result.message);
  return result.schedule;
}

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const WEEKDAYS = [1, 2, 3, 4, 5];
const ALL_DAY = [{ start: 0, end: 1440 }];

describe('parseSchedule — accepted', () => {
  it.each([
    ['Mon-Fri 09:00-17:00[Europe/Paris]', WEEKDAYS, [{ start: 540, end: 1020 }], 'Europe/Paris'],
    ['Mon-Fri', WEEKDAYS, ALL_DAY, 'UTC'],
    ['09:00-17:00', [0, 1, 2, 3, 4, 5, 6], [{ start: 540, end: 1020 }], 'UTC'],
    ['Mon,Wed', [1, 3], ALL_DAY, 'UTC'],
    ['Mon-Tue,Fri', [1, 2, 5], ALL_DAY, 'UTC'],
    ['Fri-Mon', [0, 1, 5, 6], ALL_DAY, 'UTC'],
    ['sat,SUNDAY', [0, 6], ALL_DAY, 'UTC'],
    [
      '9:30-12:00,14:00-24:00',
      [0, 1, 2, 3, 4, 5, 6],
      [
        { start: 570, end: 720 },
        { start: 840, end: 1440 },
      ],
      'UTC',
    ],
    [
      'Mon - Fri  09:00 - 17:00 [ America/New_York ]',
      WEEKDAYS,
      [{ start: 540, end: 1020 }],
      'America/New_York',
    ],
    ['Mon[europe/paris]', [1], ALL_DAY, 'Europe/Paris'],
    ['Mon-Fri[UTC]', WEEKDAYS, ALL_DAY, 'UTC'],
  ])('%s', (text, days, times, timezone) => {
    expect(parseSchedule(text)).toEqual({ ok: true, schedule: { days, times, timezone } });
  });
});

describe('parseSchedule — refused', () => {
  const expected =
    'expected days (e.g. Mon-Fri), times (e.g. 09:00-17:00) or both, then an optional [Time/Zone]';
  it.each([
    ['', `${expected}, found ""`],
    ['[Europe/Paris]', `${expected}, found "[Europe/Paris]"`],
    ['Mon Tue', `${expected}, found "Mon Tue"`],
    ['09:00-10:00 11:00-12:00', `${expected}, found "09:00-10:00 11:00-12:00"`],
    ['Mun-Fri', 'unknown day "Mun" (expected Mon, Tue, Wed, Thu, Fri, Sat or Sun)'],
    ['Mon,,Fri', 'unknown day "" (expected Mon, Tue, Wed, Thu, Fri, Sat or Sun)'],
    ['Mon-Wed-Fri', 'expected a day or a day range such as Mon-Fri, found "Mon-Wed-Fri"'],
    ['9-17', 'expected a time range such as 09:00-17:00, found "9-17"'],
    ['09:00', 'expected a time range such as 09:00-17:00, found "09:00"'],
    ['09:00-25:00', 'expected times from 00:00 to 24:00, found "09:00-25:00"'],
    ['09:60-10:00', 'expected times from 00:00 to 24:00, found "09:60-10:00"'],
    ['24:00-24:00', 'expected times from 00:00 to 24:00, found "24:00-24:00"'],
    ['09:00-24:30', 'expected times from 00:00 to 24:00, found "09:00-24:30"'],
    [
      '17:00-09:00',
      'expected the end after the start in "17:00-09:00" (split a night window: 22:00-24:00,00:00-06:00)',
    ],
    [
      '09:00-09:00',
      'expected the end after the start in "09:00-09:00" (split a night window: 22:00-24:00,00:00-06:00)',
    ],
    ['Mon[Europe/Pariss]', 'unknown time zone "Europe/Pariss" (expected e.g. Europe/Paris)'],
    ['Mon[]', 'unknown time zone "" (expected e.g. Europe/Paris)'],
    [
      'Mon[Europe/Paris',
      'expected the time zone in brackets at the end, e.g. [Europe/Paris], found "Mon[Europe/Paris"',
    ],
    ['[UTC] Mon', 'expected the time zone in brackets at the end, e.g. [Europe/Paris], found "[UTC] Mon"'],
  ])('%j: %s', (text, message) => {
    expect(parseSchedule(text)).toEqual({ ok: false, message });
  });
});

describe('isWithinSchedule', () => {
  const office = schedule('Mon-Fri 09:00-17:00[Europe/Paris]');

  it.each([
    ['2025-01-15T08:00:00Z', true, 'winter, 09:00 in Paris: the start is inside'],
    ['2025-01-15T07:59:59.999Z', false, 'winter, just before 09:00 in Paris'],
    ['2025-01-15T15:59:59.999Z', true, 'winter, just before 17:00 in Paris'],
    ['2025-01-15T16:00:00Z', false, 'winter, 17:00 in Paris: the end is outside'],
    ['2025-07-16T07:00:00Z', true, 'summer, 09:00 in Paris (UTC+2)'],
    ['2025-07-16T06:59:00Z', false, 'summer, 08:59 in Paris'],
    ['2025-07-16T15:30:00Z', false, 'summer, 17:30 in Paris though 15:30 UTC'],
    ['2025-01-18T10:00:00Z', false, 'Saturday'],
    ['2025-01-19T23:30:00Z', false, 'Sunday 23:30 UTC is Monday 00:30 in Paris, before 09:00'],
  ])('%s → %s (%s)', (instant, inside) => {
    expect(isWithinSchedule(office, at(instant))).toBe(inside);
  });

  it('takes a Date as well as epoch milliseconds', () => {
    expect(isWithinSchedule(office, new Date('2025-01-15T08:00:00Z'))).toBe(true);
  });

  it('uses UTC without a time zone', () => {
    const utc = schedule('Mon 09:00-10:00');
    expect(isWithinSchedule(utc, at('2025-01-13T09:00:00Z'))).toBe(true);
    expect(isWithinSchedule(utc, at('2025-01-13T10:00:00Z'))).toBe(false);
  });

  it('day names are in the time zone: Monday in Tokyo starts on Sunday in UTC', () => {
    expect(isWithinSchedule(schedule('Mon[Asia/Tokyo]'), at('2025-01-12T15:00:00Z'))).toBe(true);
  });

  it('refuses an invalid instant instead of guessing', () => {
    expect(() => isWithinSchedule(office, Number.NaN)).toThrow(RangeError);
  });
});

describe('nextScheduleChange', () => {
  const office = schedule('Mon-Fri 09:00-17:00[Europe/Paris]');

  it.each([
    ['2025-01-15T07:00:00Z', '2025-01-15T08:00:00.000Z', 'opens at 09:00 Paris'],
    [
      '2025-01-15T08:00:00Z',
      '2025-01-15T16:00:00.000Z',
      'at the opening instant, the next change is the closing',
    ],
    ['2025-01-15T12:34:56.789Z', '2025-01-15T16:00:00.000Z', 'closes at 17:00 Paris'],
    ['2025-01-17T16:00:00Z', '2025-01-20T08:00:00.000Z', 'Friday evening → Monday morning'],
    [
      '2025-03-28T16:00:00Z',
      '2025-03-31T07:00:00.000Z',
      'over the spring-forward weekend: 09:00 is now 07:00 UTC',
    ],
    [
      '2025-10-24T15:00:00Z',
      '2025-10-27T08:00:00.000Z',
      'over the fall-back weekend: 09:00 is now 08:00 UTC',
    ],
  ])('from %s: %s (%s)', (from, expected) => {
    expect(iso(nextScheduleChange(office, at(from)))).toBe(expected);
  });

  function changes(s: Schedule, from: string, count: number): (string | null)[] {
    const found: (string | null)[] = [];
    let instant = at(from);
    for (let i = 0; i < count; i++) {
      const next = nextScheduleChange(s, instant);
      found.push(iso(next));
      if (next === null) break;
      instant = next;
    }
    return found;
  }

  it('a window inside the hour skipped by spring-forward never opens that day', () => {
    expect(changes(schedule('Sun 02:00-02:30[Europe/Paris]'), '2025-03-29T12:00:00Z', 2)).toEqual([
      '2025-04-06T00:00:00.000Z',
      '2025-04-06T00:30:00.000Z',
    ]);
  });

  it('a window inside the hour repeated by fall-back opens twice that night', () => {
    expect(changes(schedule('Sun 02:00-02:30[Europe/Paris]'), '2025-10-25T12:00:00Z', 4)).toEqual([
      '2025-10-26T00:00:00.000Z',
      '2025-10-26T00:30:00.000Z',
      '2025-10-26T01:00:00.000Z',
      '2025-10-26T01:30:00.000Z',
    ]);
  });

  it('a window straddling the skipped hour opens at the shift itself', () => {
    // Sunday 01:30-02:30 Paris on 2025-03-30: opens 00:30 UTC; at 01:00 UTC clocks jump to 03:00, closing it.
    expect(changes(schedule('Sun 01:30-02:30[Europe/Paris]'), '2025-03-29T12:00:00Z', 2)).toEqual([
      '2025-03-30T00:30:00.000Z',
      '2025-03-30T01:00:00.000Z',
    ]);
  });

  it('New York shifts on its own date (second Sunday of March)', () => {
    const ny = schedule('Mon-Fri 09:00-17:00[America/New_York]');
    expect(iso(nextScheduleChange(ny, at('2025-03-07T22:00:00Z')))).toBe('2025-03-10T13:00:00.000Z');
  });

  it('adjacent days do not close at midnight', () => {
    expect(iso(nextScheduleChange(schedule('Mon-Tue'), at('2025-01-13T10:00:00Z')))).toBe(
      '2025-01-15T00:00:00.000Z',
    );
  });

  it('a window wrapping the week end closes after it', () => {
    expect(iso(nextScheduleChange(schedule('Sat-Mon'), at('2025-01-18T10:00:00Z')))).toBe(
      '2025-01-21T00:00:00.000Z',
    );
  });

  it('a split night window stays open across midnight', () => {
    const nights = schedule('22:00-24:00,00:00-06:00');
    expect(iso(nextScheduleChange(nights, at('2025-01-13T23:00:00Z')))).toBe('2025-01-14T06:00:00.000Z');
  });

  it.each(['Mon-Sun', '00:00-24:00', 'Sun-Sat 00:00-24:00[Europe/Paris]'])('%s never changes', (text) => {
    expect(nextScheduleChange(schedule(text), at('2025-03-29T12:00:00Z'))).toBeNull();
  });

  it('with a 30-minute shift (Lord Howe Island), a window spanning the repeat stays open through it', () => {
    // 2025-04-06 02:00 (+11) goes back to 01:30 (+10:30): 01:30-02:00 runs from 14:30Z to 15:30Z.
    const lordHowe = schedule('Sun 01:30-02:00[Australia/Lord_Howe]');
    expect(changes(lordHowe, '2025-04-05T00:00:00Z', 2)).toEqual([
      '2025-04-05T14:30:00.000Z',
      '2025-04-05T15:30:00.000Z',
    ]);
  });
});
