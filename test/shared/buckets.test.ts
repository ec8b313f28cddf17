import { describe, expect, it } from 'vitest';
import { bucketEnd, bucketStart, bucketsBetween, bucketWidthSeconds } from '../../shared/stats/buckets.ts';

const HOUR = 3_600;
const DAY = 86_400;
const t0 = new Date('2026-11-01T00:00:00Z');
const after = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const iso = (d: Date) => d.toISOString();

describe('bucketWidthSeconds', () => {
  it.each([
    ['zero-length period', 0, HOUR],
    ['one day (the default window)', DAY, HOUR],
    ['exactly 2 days', 2 * DAY, HOUR],
    ['2 days + 1 s', 2 * DAY + 1, 4 * HOUR],
    ['exactly 7 days', 7 * DAY, 4 * HOUR],
    ['7 days + 1 s', 7 * DAY + 1, DAY],
    ['exactly 60 days', 60 * DAY, DAY],
    ['60 days + 1 s', 60 * DAY + 1, 2 * DAY],
    ['a year', 365 * DAY, 2 * DAY],
  ])('%s ⇒ %i s', (_label, periodSeconds, width) => {
    expect(bucketWidthSeconds(t0, after(periodSeconds))).toBe(width);
  });

  it('counts sub-second overruns as longer than the boundary', () => {
    expect(bucketWidthSeconds(t0, new Date(t0.getTime() + 2 * DAY * 1000 + 1))).toBe(4 * HOUR);
  });
});

describe('bucketStart', () => {
  it('aligns 1-hour buckets to the hour', () => {
    expect(iso(bucketStart(new Date('2026-11-01T10:59:59.999Z'), HOUR))).toBe('2026-11-01T10:00:00.000Z');
  });

  it('aligns 4-hour buckets to multiples of 4 hours UTC', () => {
    expect(iso(bucketStart(new Date('2026-11-01T10:30:00Z'), 4 * HOUR))).toBe('2026-11-01T08:00:00.000Z');
    expect(iso(bucketStart(new Date('2026-11-01T08:00:00Z'), 4 * HOUR))).toBe('2026-11-01T08:00:00.000Z');
    expect(iso(bucketStart(new Date('2026-11-01T07:59:59Z'), 4 * HOUR))).toBe('2026-11-01T04:00:00.000Z');
  });

  it('ignores the offset the instant was written with', () => {
    expect(iso(bucketStart(new Date('2026-11-01T10:30:00+02:00'), 4 * HOUR))).toBe(
      '2026-11-01T08:00:00.000Z',
    );
  });

  it('aligns 1-day buckets to midnight UTC', () => {
    expect(iso(bucketStart(new Date('2026-11-01T23:59:59Z'), DAY))).toBe('2026-11-01T00:00:00.000Z');
  });

  it('starts 2-day buckets on even days since 1970-01-01', () => {
    // 2026-11-01 is day 20_758 since the epoch (even): 2026-11-02 (odd) belongs to its bucket.
    expect(new Date('2026-11-01T00:00:00Z').getTime() / (DAY * 1000)).toBe(20_758);
    expect(iso(bucketStart(new Date('2026-11-02T12:00:00Z'), 2 * DAY))).toBe('2026-11-01T00:00:00.000Z');
    expect(iso(bucketStart(new Date('2026-11-03T00:00:00Z'), 2 * DAY))).toBe('2026-11-03T00:00:00.000Z');
    for (let day = 0; day < 30; day++) {
      const start = bucketStart(new Date(Date.UTC(2027, 0, 1 + day, 13)), 2 * DAY);
      expect((start.getTime() / (DAY * 1000)) % 2).toBe(0);
    }
  });

  it('aligns instants before the epoch downwards', () => {
    expect(iso(bucketStart(new Date('1969-12-31T23:30:00Z'), HOUR))).toBe('1969-12-31T23:00:00.000Z');
  });
});

describe('bucketEnd', () => {
  it.each([
    [HOUR, '2026-11-01T08:59:59.000Z'],
    [4 * HOUR, '2026-11-01T11:59:59.000Z'],
    [DAY, '2026-11-02T07:59:59.000Z'],
    [2 * DAY, '2026-11-03T07:59:59.000Z'],
  ])('width %i s ⇒ start + width − 1 s', (width, expected) => {
    expect(iso(bucketEnd(new Date('2026-11-01T08:00:00Z'), width))).toBe(expected);
  });
});

describe('bucketsBetween', () => {
  it('lists every aligned bucket overlapping the period, the first one starting before it', () => {
    const starts = bucketsBetween(new Date('2026-11-01T10:30:00Z'), new Date('2026-11-01T13:00:00Z'), HOUR);
    expect(starts.map(iso)).toEqual([
      '2026-11-01T10:00:00.000Z',
      '2026-11-01T11:00:00.000Z',
      '2026-11-01T12:00:00.000Z',
      '2026-11-01T13:00:00.000Z',
    ]);
  });

  it('does not add a bucket past the end when the end is its last second', () => {
    const starts = bucketsBetween(
      new Date('2026-11-01T00:00:00Z'),
      new Date('2026-11-01T23:59:59Z'),
      4 * HOUR,
    );
    expect(starts).toHaveLength(6);
    expect(iso(bucketEnd(starts.at(-1)!, 4 * HOUR))).toBe('2026-11-01T23:59:59.000Z');
  });

  it('covers a one-day default window with 25 hourly buckets when it is not aligned', () => {
    const end = new Date('2026-11-01T10:15:00Z');
    const start = new Date(end.getTime() - DAY * 1000);
    expect(bucketsBetween(start, end, bucketWidthSeconds(start, end))).toHaveLength(25);
  });

  it('gives one bucket for an instant and none for an inverted period', () => {
    const at = new Date('2026-11-01T10:15:00Z');
    expect(bucketsBetween(at, at, HOUR).map(iso)).toEqual(['2026-11-01T10:00:00.000Z']);
    expect(bucketsBetween(at, new Date('2026-11-01T10:10:00Z'), HOUR)).toEqual([]);
  });

  it('uses epoch-aligned 2-day buckets', () => {
    const starts = bucketsBetween(
      new Date('2026-11-02T00:00:00Z'),
      new Date('2026-11-05T00:00:00Z'),
      2 * DAY,
    );
    expect(starts.map(iso)).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-03T00:00:00.000Z',
      '2026-11-05T00:00:00.000Z',
    ]);
  });

  it('rejects a non-positive width instead of looping forever', () => {
    expect(() => bucketsBetween(t0, after(10), 0)).toThrow(RangeError);
  });
});
