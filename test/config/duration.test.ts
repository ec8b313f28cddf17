import { describe, expect, it } from 'vitest';
import { formatDuration, MAX_DURATION_SECONDS, parseDuration } from '../../app/config/duration.ts';

describe('parseDuration', () => {
  it.each([
    ['30s', 30],
    ['5m', 300],
    ['1h', 3_600],
    ['2d', 172_800],
    ['1h30m', 5_400],
    ['1d2h3m4s', 93_784],
    ['1h 30m', 5_400],
    ['  45s  ', 45],
    ['0s', 0],
    ['90', 90],
    [90, 90],
    [0, 0],
    ['365d', MAX_DURATION_SECONDS],
  ])('reads %j as %i seconds', (input, seconds) => {
    expect(parseDuration(input)).toEqual({ ok: true, seconds });
  });

  it.each([
    ['', 'expected a duration such as 30s, 5m, 1h30m or 2d, found ""'],
    ['soon', 'expected a duration such as 30s, 5m, 1h30m or 2d, found "soon"'],
    ['h', 'expected a duration such as 30s, 5m, 1h30m or 2d, found "h"'],
    ['30s!', 'expected a duration such as 30s, 5m, 1h30m or 2d, found "30s!"'],
    ['500ms', 'milliseconds are not supported (durations are whole seconds), found "500ms"'],
    ['5w', 'unknown unit "w" in "5w"; use s, m, h or d (such as 30s, 5m, 1h30m or 2d)'],
    ['5H', 'unknown unit "H" in "5H"; use s, m, h or d (such as 30s, 5m, 1h30m or 2d)'],
    ['1.5h', 'expected whole numbers in a duration (write 1h30m, not 1.5h), found "1.5h"'],
    ['30m1h', 'expected units from the largest to the smallest, each once (e.g. 1h30m), found "30m1h"'],
    ['1h1h', 'expected units from the largest to the smallest, each once (e.g. 1h30m), found "1h1h"'],
    ['-5s', 'expected a duration of 0s or more, found "-5s"'],
    [-5, 'expected a duration of 0s or more, found -5'],
    [1.5, 'expected a whole number of seconds or a duration such as 30s, 5m, 1h30m or 2d, found 1.5'],
    ['366d', 'expected a duration of at most 365d, found "366d"'],
    [true, 'expected a duration such as 30s, 5m, 1h30m or 2d, found true'],
    [null, 'expected a duration such as 30s, 5m, 1h30m or 2d, found null'],
    [['30s'], 'expected a duration such as 30s, 5m, 1h30m or 2d, found a list'],
  ])('refuses %j', (input, message) => {
    expect(parseDuration(input)).toEqual({ ok: false, message });
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [30, '30s'],
    [5_400, '1h30m'],
    [93_784, '1d2h3m4s'],
  ])('writes %i seconds as %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
    expect(parseDuration(text)).toEqual({ ok: true, seconds });
  });
});
