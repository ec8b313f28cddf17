import { describe, expect, it } from 'vitest';
import { freezeTimeToInstant, instantToFreezeTime } from '../../shared/freeze-times.ts';

const at = (iso: string) => Date.parse(iso);

describe('freeze times: wall-clock times of the freeze time zone', () => {
  it.each([
    ['2026-12-24T18:00:00', 'Europe/Paris', '2026-12-24T17:00:00.000Z'],
    ['2026-07-14T18:00:00', 'Europe/Paris', '2026-07-14T16:00:00.000Z'],
    ['2026-07-14 18:00', 'America/New_York', '2026-07-14T22:00:00.000Z'],
    ['2026-07-14T18:00:00.250', 'UTC', '2026-07-14T18:00:00.250Z'],
    ['2026-07-14T18:00:00Z', 'Asia/Tokyo', '2026-07-14T18:00:00.000Z'],
    ['2026-07-14T18:00:00+05:30', 'Europe/Paris', '2026-07-14T12:30:00.000Z'],
  ])('%s in %s is %s', (text, timezone, instant) => {
    expect(new Date(freezeTimeToInstant(text, timezone)).toISOString()).toBe(instant);
  });

  it('reads a time that occurs twice (clocks set back) as its first occurrence', () => {
    // Paris, 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:30 happens at 00:30Z and at 01:30Z.
    expect(freezeTimeToInstant('2026-10-25T02:30:00', 'Europe/Paris')).toBe(at('2026-10-25T00:30:00Z'));
  });

  it('reads a time that does not occur (clocks set forward) as far after the gap as it was into it', () => {
    // Paris, 2026-03-29: 02:00 CET becomes 03:00 CEST; 02:30 does not exist, 03:30 CEST is meant.
    const instant = freezeTimeToInstant('2026-03-29T02:30:00', 'Europe/Paris');
    expect(instant).toBe(at('2026-03-29T01:30:00Z'));
    expect(instantToFreezeTime(instant, 'Europe/Paris')).toBe('2026-03-29T03:30:00');
  });

  it.each([
    ['2026-02-30T10:00:00'],
    ['2026-13-01T10:00:00'],
    ['2026-01-01T24:00:00'],
    ['1969-12-31T23:00:00'],
    ['tomorrow'],
  ])('refuses %s (NaN)', (text) => {
    expect(freezeTimeToInstant(text, 'UTC')).toBeNaN();
  });

  it('shows an instant as the wall-clock time of the zone, without an offset, milliseconds only when there are some', () => {
    expect(instantToFreezeTime(at('2026-12-24T17:00:00Z'), 'Europe/Paris')).toBe('2026-12-24T18:00:00');
    expect(instantToFreezeTime(at('2026-12-24T17:00:00.5Z'), 'UTC')).toBe('2026-12-24T17:00:00.500');
    for (const text of ['2026-01-31T23:59:59', '2026-06-30T00:00:00']) {
      expect(instantToFreezeTime(freezeTimeToInstant(text, 'Australia/Sydney'), 'Australia/Sydney')).toBe(
        text,
      );
    }
  });
});
