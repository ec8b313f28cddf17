import { describe, expect, it } from 'vitest';
import type { ScheduledFreeze } from '../../../shared/schemas/scheduled-freeze.schema.ts';
import { freezeDetails, freezeLine, freezeWhen } from '../../src/freezes/freeze-text.ts';

const now = new Date('2026-12-24T12:00:00Z');
const at = (d: Date) => d.toISOString().slice(0, 16);
const freeze = (extra: Partial<ScheduledFreeze>): ScheduledFreeze => ({
  id: '6f1c2a4e-1111-4222-8333-944445555666',
  reason: 'Christmas',
  start: '2026-12-24T18:00:00',
  end: '2026-12-26T09:00:00',
  timezone: 'Europe/Paris',
  matching_conditions: [],
  exclude_conditions: [],
  ...extra,
});

describe('Scheduled freezes in the extension (the text)', () => {
  it('reads start and end as wall-clock times of the freeze time zone: upcoming before its start', () => {
    const f = freeze({});
    expect(freezeWhen(f, now)).toEqual({
      state: 'upcoming',
      start: new Date('2026-12-24T17:00:00Z'),
      end: new Date('2026-12-26T08:00:00Z'),
    });
    expect(freezeLine(f, now, at)).toBe('upcoming · from 2026-12-24T17:00 (in 5 hr.) to 2026-12-26T08:00');
  });

  it('active from its start: until its end, or until deleted', () => {
    const started = freeze({ start: '2026-12-24T06:00:00', timezone: 'America/New_York' });
    expect(freezeWhen(started, now).state).toBe('active');
    expect(freezeLine(started, now, at)).toBe('active · until 2026-12-26T14:00 (in 2 days)');
    expect(freezeLine(freeze({ start: '2026-12-24T10:00:00', end: null }), now, at)).toBe(
      'active · until deleted',
    );
  });

  it('says which pull requests it holds and when, in its zone and here', () => {
    const text = freezeDetails(
      freeze({ matching_conditions: ['base=main'], exclude_conditions: ['label=hotfix'] }),
      now,
      at,
    );
    expect(text).toContain('Upcoming: merges go on until it starts.');
    expect(text).toContain(
      'From 2026-12-24T18:00:00 to 2026-12-26T09:00:00 (Europe/Paris); here: 2026-12-24T17:00 to 2026-12-26T08:00.',
    );
    expect(text).toContain('Holds the pull requests matching: base=main.');
    expect(text).toContain('Except: label=hotfix.');
  });
});
