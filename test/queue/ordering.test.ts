import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trainyardConfigSchema } from '../../app/config/config.schema.ts';
import { KEY_SEPARATOR } from '../../app/queue/composite-key.ts';
import { orderSessions, orderSessionsByLane } from '../../app/queue/ordering.ts';
import { initialState } from '../../app/queue/state.schema.ts';
import type { QueueState, Session } from '../../app/queue/state.ts';

const config = trainyardConfigSchema.parse({
  queue_rules: [{ name: 'urgent' }, { name: 'default' }],
  partition_rules: [
    { name: 'a', conditions: ['label=a'] },
    { name: 'b', conditions: ['label=b'] },
  ],
});

function session(
  number: number,
  fields: { priority: number; minute: number; rule: number; partitions: string[] },
): Session {
  return {
    number,
    sessionId: '00000000-0000-4000-8000-000000000000',
    queueName: fields.rule === 0 ? 'urgent' : 'default',
    base: 'main',
    partitions: fields.partitions,
    priority: fields.priority,
    priorityAlias: String(fields.priority),
    priorityRuleName: null,
    allowChecksInterruption: false,
    queuedAt: new Date(Date.UTC(2026, 10, 2, 9, fields.minute)).toISOString(),
    seq: number,
    headSha: `sha-${number}`,
    waitingForAhead: null,
    freeze: { seconds: 0, since: null },
    schedule: { seconds: 0, since: null },
  };
}

const change = fc.record({
  number: fc.integer({ min: 1, max: 40 }),
  remove: fc.boolean(),
  priority: fc.constantFrom(1000, 2000, 3000),
  minute: fc.integer({ min: 0, max: 5 }),
  rule: fc.integer({ min: 0, max: 1 }),
  partitions: fc.constantFrom(['a'], ['b'], ['a', 'b']),
});

describe('queue order', () => {
  it('is rule order, then priority (higher first), then queued_at, then entry order', () => {
    const a = session(1, { priority: 2000, minute: 1, rule: 1, partitions: ['a'] });
    const b = session(2, { priority: 3000, minute: 2, rule: 1, partitions: ['a'] });
    const c = session(3, { priority: 1000, minute: 3, rule: 0, partitions: ['a'] });
    const d = session(4, { priority: 2000, minute: 0, rule: 1, partitions: ['a'] });
    expect(orderSessions(config, [a, b, c, d]).map((s) => s.number)).toEqual([3, 2, 4, 1]);
  });

  it('updating the lanes step by step gives the same order as sorting from scratch', () => {
    fc.assert(
      fc.property(fc.array(fc.array(change, { maxLength: 40 }), { minLength: 1, maxLength: 12 }), (steps) => {
        let state: QueueState = initialState(config);
        for (const changes of steps) {
          const sessions = { ...state.sessions };
          for (const c of changes) {
            if (c.remove) delete sessions[String(c.number)];
            else sessions[String(c.number)] = session(c.number, { ...c, partitions: [...c.partitions] });
          }
          state = { ...state, sessions };
          const incremental = [...orderSessionsByLane(state)]
            .filter(([, list]) => list.length > 0)
            .map(([key, list]) => `${key.split(KEY_SEPARATOR)[1]}: ${list.map((s) => s.number)}`)
            .sort();
          const sorted = orderSessions(config, Object.values(sessions));
          const fresh = ['a', 'b']
            .map((p) => [p, sorted.filter((s) => s.partitions.includes(p)).map((s) => s.number)] as const)
            .filter(([, list]) => list.length > 0)
            .map(([p, list]) => `${p}: ${list}`);
          expect(incremental).toEqual(fresh);
        }
      }),
      { numRuns: 200 },
    );
  });
});
