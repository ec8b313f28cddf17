import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../app/config/config.schema.ts';
import { initialState, queueStateSchema } from '../../app/queue/state.schema.ts';
import { failIfContains, scenario } from './support/scenario.ts';

describe('the stored state', () => {
  it('the initial state is plain JSON and parses', () => {
    const state = initialState(defaultConfig);
    expect(queueStateSchema.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });

  it('a busy state (batches, bisection, sessions) survives a JSON round trip unchanged', () => {
    const s = scenario({
      queue_rules: [{ name: 'default', batch_size: 4 }],
      merge_queue: { max_parallel_checks: 2 },
    });
    s.queue(1, 2, 3, 4, 5).runUntilIdle({ ci: failIfContains(3), until: '15m' });
    const stored = JSON.parse(JSON.stringify(s.state));
    expect(queueStateSchema.parse(stored)).toEqual(s.state);
  });

  it('a session never held stores no held times, and one stored with them (before they were left out) still parses', () => {
    const s = scenario();
    s.queue(1).runUntilIdle({ ci: () => 'hang', until: '1m' });
    const session = s.state.sessions['1']!;
    expect(Object.keys(session)).not.toContain('freeze');
    expect(Object.keys(session)).not.toContain('schedule');
    const held = { seconds: 0, since: null };
    const older = { ...s.state, sessions: { '1': { ...session, freeze: held, schedule: held } } };
    expect(queueStateSchema.parse(JSON.parse(JSON.stringify(older))).sessions['1']).toMatchObject({
      freeze: held,
      schedule: held,
    });
  });

  it('rejects a batch holding a pull request that is not queued', () => {
    const s = scenario();
    s.queue(1).runUntilIdle({ ci: () => 'hang', until: '1m' });
    const broken = structuredClone(s.state);
    delete broken.sessions['1'];
    const result = queueStateSchema.safeParse(broken);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toContain('batch-1 holds #1, which is not queued');
  });

  it('rejects a pull request twice in a lane, and a batch in a phase it cannot be in', () => {
    const s = scenario({ merge_queue: { max_parallel_checks: 2 } });
    s.queue(1, 2).runUntilIdle({ ci: () => 'hang', until: '1m' });
    const twice = structuredClone(s.state);
    twice.lanes[0]!.batches[1]!.numbers = [1];
    expect(queueStateSchema.safeParse(twice).error?.issues.map((i) => i.message)).toContain(
      '#1 is twice in lane main/__default__',
    );
    const impossible = structuredClone(s.state) as unknown as {
      lanes: { batches: Record<string, unknown>[] }[];
    };
    impossible.lanes[0]!.batches[0]!.phase = 'merging';
    expect(queueStateSchema.safeParse(impossible).success).toBe(false);
  });
});
