import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isWithinSchedule,
  nextScheduleChange,
  type Schedule,
} from '../../../app/config/conditions/schedule.ts';

const ZONES = [
  'UTC',
  'Europe/Paris',
  'America/New_York',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'America/Santiago',
];

const timeRange = fc
  .tuple(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 1, max: 1440 }))
  .filter(([start, end]) => start < end)
  .map(([start, end]) => ({ start, end }));

const scheduleArbitrary: fc.Arbitrary<Schedule> = fc.record({
  days: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }),
  times: fc.array(timeRange, { minLength: 1, maxLength: 3 }),
  timezone: fc.constantFrom(...ZONES),
});

// 2020–2030, with a bias towards the minutes around daylight-saving shifts of the zones above.
const instant = fc.oneof(
  fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') }),
  fc
    .constantFrom(
      '2025-03-30T01:00:00Z',
      '2025-10-26T01:00:00Z',
      '2025-04-05T15:00:00Z',
      '2025-03-09T07:00:00Z',
    )
    .chain((shift) =>
      fc.integer({ min: Date.parse(shift) - 8 * 86_400_000, max: Date.parse(shift) + 3_600_000 }),
    ),
);

const WEEK = 7 * 86_400_000;

describe('nextScheduleChange — properties', () => {
  it('returns the first instant at which being inside the schedule flips', () => {
    fc.assert(
      fc.property(
        scheduleArbitrary,
        instant,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true })),
        (s, t, samples) => {
          const inside = isWithinSchedule(s, t);
          const next = nextScheduleChange(s, t);
          const end = next ?? t + WEEK + 86_400_000;
          if (next !== null) {
            expect(next).toBeGreaterThan(t);
            expect(next - t).toBeLessThanOrEqual(WEEK + 3_600_000);
            expect(isWithinSchedule(s, next)).toBe(!inside);
            expect(isWithinSchedule(s, next - 1)).toBe(inside);
          }
          for (const fraction of samples) {
            expect(isWithinSchedule(s, t + Math.floor((end - t) * fraction * 0.999999))).toBe(inside);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
