import { describe, expect, it } from 'vitest';
import type { ConditionInput } from '../../../app/config/conditions/conditions.schema.ts';
import {
  canStillMatch,
  computeConditionsOutcome,
  isWaitingForSchedule,
  nextConditionsChange,
} from '../../../app/config/conditions/evaluate-conditions.ts';
import type { CheckRunFact } from '../../../app/config/conditions/pull-request-facts.ts';
import { conditions } from './conditions-builder.ts';
import { facts } from './facts-builder.ts';

const NOW = Date.parse('2025-01-15T10:00:00Z'); // Wednesday 11:00 in Paris

/** `runs` is compact: "ci:pending lint:failure", in the order reported. */
function outcome(list: ConditionInput[], runs: string, labels: string[] = []) {
  const checkRuns = runs
    .split(' ')
    .filter(Boolean)
    .map((run) => {
      const [name = '', state] = run.split(':');
      return { name, state: state as CheckRunFact['state'] };
    });
  const pr = facts({ labels, checkRuns });
  const parsed = conditions(...list);
  const result = computeConditionsOutcome(parsed, pr, NOW);
  expect(canStillMatch(parsed, pr, NOW)).toBe(result.outcome !== 'fails');
  return result.outcome;
}

describe('computeConditionsOutcome — passes / pending / fails', () => {
  const either = { or: ['check-success=a', 'check-success=b'] };
  it.each<[string, ConditionInput[], string, 'passes' | 'pending' | 'fails']>([
    ['a required check succeeded', ['check-success=ci'], 'ci:success', 'passes'],
    ['a required check is running', ['check-success=ci'], 'ci:pending', 'pending'],
    ['a required check has not reported yet', ['check-success=ci'], 'lint:success', 'pending'],
    ['a required check failed', ['check-success=ci'], 'ci:failure', 'fails'],
    ['a required check was cancelled', ['check-success=ci'], 'ci:cancelled', 'fails'],
    ['a required check ended neutral', ['check-success=ci'], 'ci:neutral', 'fails'],
    ['a failed run was re-run and is running', ['check-success=ci'], 'ci:failure ci:pending', 'pending'],
    [
      'one of two required checks failed',
      ['check-success=ci', 'check-success=lint'],
      'ci:pending lint:failure',
      'fails',
    ],
    ['no failure so far holds while running', ['-check-failure=ci'], 'ci:pending', 'passes'],
    ['no failure, but it failed', ['-check-failure=ci'], 'ci:failure', 'fails'],
    ['not(failure) while running', [{ not: 'check-failure=ci' }], 'ci:pending', 'passes'],
    ['either check: one failed, one running', [either], 'a:failure b:pending', 'pending'],
    ['either check: both failed', [either], 'a:failure b:failure', 'fails'],
    ['either check: one passed', [either], 'a:failure b:success', 'passes'],
    ['two successes wanted, one running', ['#check-success>=2'], 'a:success b:pending', 'pending'],
    ['two successes wanted, nothing reported yet', ['#check-success>=2'], '', 'pending'],
    [
      'two successes wanted, one failed: another check may come',
      ['#check-success>=2'],
      'a:success b:failure',
      'pending',
    ],
    ['no failed check wanted, one failed', ['#check-failure=0'], 'a:failure b:pending', 'fails'],
    ['no failed check wanted, none so far', ['#check-failure=0'], 'a:success b:pending', 'passes'],
    ['at most one success wanted, two already', ['#check-success<=1'], 'a:success b:success', 'fails'],
    ['no check running, one is', ['#check-pending=0'], 'a:pending', 'pending'],
    ['a check matching a pattern, none reported', ['check-success~=^ci/'], 'lint:success', 'pending'],
    ['a check matching a pattern succeeded', ['check-success~=^ci/'], 'ci/unit:success', 'passes'],
    [
      'a check matching a pattern failed: another may still succeed',
      ['check-success~=^ci/'],
      'ci/unit:failure',
      'pending',
    ],
    ['no failure matching a pattern, one failed', ['-check-failure~=^ci/'], 'ci/unit:failure', 'fails'],
    ['a check is not pending any more', ['-check-pending=ci'], 'ci:pending', 'pending'],
  ])('%s → %s', (_, list, runs, expected) => {
    expect(outcome(list, runs)).toBe(expected);
  });

  it('a condition on something CI cannot change fails at once, even with checks running', () => {
    expect(outcome(['check-success=ci', 'label=queue'], 'ci:pending')).toBe('fails');
    expect(outcome(['check-success=ci', 'label=queue'], 'ci:pending', ['queue'])).toBe('pending');
  });

  it('the evaluation tree comes with the outcome', () => {
    const { evaluation } = computeConditionsOutcome(conditions('check-success=ci'), facts(), NOW);
    expect(evaluation).toMatchObject({
      match: false,
      label: 'all of',
      subconditions: [{ label: 'check-success=ci' }],
    });
  });
});

describe('schedules in merge conditions', () => {
  const officeHours = 'schedule=Mon-Fri 09:00-17:00[Europe/Paris]';
  const green = facts({ checkRuns: [{ name: 'ci', state: 'success' }] });
  const saturday = Date.parse('2025-01-18T10:00:00Z');

  it('outside the window the batch waits (pending), it does not fail', () => {
    expect(
      computeConditionsOutcome(conditions('check-success=ci', officeHours), green, saturday).outcome,
    ).toBe('pending');
    expect(computeConditionsOutcome(conditions('check-success=ci', officeHours), green, NOW).outcome).toBe(
      'passes',
    );
  });

  it('isWaitingForSchedule: true only when the schedule alone holds the pull request back', () => {
    expect(isWaitingForSchedule(conditions('check-success=ci', officeHours), green, saturday)).toBe(true);
    expect(isWaitingForSchedule(conditions('check-success=ci', officeHours), green, NOW)).toBe(false);
    expect(isWaitingForSchedule(conditions('check-success=ci', officeHours), facts(), saturday)).toBe(false);
    expect(isWaitingForSchedule(conditions('check-success=ci'), facts(), saturday)).toBe(false);
  });

  it('nextConditionsChange gives the earliest opening or closing among the schedules, for a wake-up', () => {
    const list = conditions(officeHours, { or: ['label=x', 'schedule=Wed 10:30-11:00'] });
    expect(nextConditionsChange(list, NOW)).toBe(Date.parse('2025-01-15T10:30:00Z'));
    expect(nextConditionsChange(conditions(officeHours), saturday)).toBe(Date.parse('2025-01-20T08:00:00Z'));
    expect(nextConditionsChange(conditions('check-success=ci'), NOW)).toBeNull();
  });
});
