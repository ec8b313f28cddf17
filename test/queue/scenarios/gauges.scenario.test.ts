import { describe, expect, it } from 'vitest';
import { trainyardConfigSchema } from '../../../app/config/config.schema.ts';
import type { NewEventOf } from '../../../shared/schemas/event.schema.ts';
import { scenario } from '../support/scenario.ts';

const sizes = (s: ReturnType<typeof scenario>) =>
  s.events('action.queue.change').map((e) => (e as NewEventOf<'action.queue.change'>).metadata.size);
const running = (s: ReturnType<typeof scenario>) =>
  s
    .events('action.queue.checks.change')
    .map((e) => (e as NewEventOf<'action.queue.checks.change'>).metadata.running_checks);

describe('gauges', () => {
  it('action.queue.change follows every change of the waiting + embarked count', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2, 3).runUntilIdle();
    expect(sizes(s)).toEqual([1, 2, 3, 2, 1, 0]);
  });

  it('action.queue.checks.change follows every change of the number of running checks', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2, 3).runUntilIdle();
    // Gauges are end-of-step values: batch-1 passing and batch-3 starting in one step is no change.
    expect(running(s)).toEqual([1, 2, 1, 0]);
  });

  it('sizes are kept per priority rule, so statistics can group by it', () => {
    const s = scenario({
      priority_rules: [{ name: 'hotfix', conditions: ['label=hotfix'], priority: 'high' }],
    });
    s.send({ type: 'pause_set', reason: 'hold', by: { type: 'user', id: 1, name: 'ops' } });
    s.queue(1);
    s.open(2, { labels: [{ id: 1, name: 'hotfix', color: 'ff0000', default: false }] }).command(2, 'queue');
    const changes = s
      .events('action.queue.change')
      .map((e) => (e as NewEventOf<'action.queue.change'>).metadata);
    expect(changes.map((m) => [m.priority_rule_name, m.size])).toEqual([
      [null, 1],
      ['hotfix', 1],
    ]);
  });

  it('fewer parallel checks stop the extra batches (SPECULATIVE_CHECK_NUMBER_REDUCED)', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 3 } });
    s.queue(1, 2, 3).runUntilIdle({ ci: () => 'hang', until: '1m' });
    s.send({
      type: 'config_changed',
      config: trainyardConfigSchema.parse({ merge_queue: { max_parallel_checks: 1 } }),
    });
    const aborted = s.events('action.queue.checks_end').map((e) => {
      const m = (e as NewEventOf<'action.queue.checks_end'>).metadata;
      return `#${e.pull_request} ${m.abort_code}`;
    });
    expect(aborted).toEqual(['#2 SPECULATIVE_CHECK_NUMBER_REDUCED', '#3 SPECULATIVE_CHECK_NUMBER_REDUCED']);
    expect(running(s).at(-1)).toBe(1);
  });
});
