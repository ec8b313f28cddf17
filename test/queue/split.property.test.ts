import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAll } from './support/invariants.ts';
import { type Action, actionArb, configArb, randomOracle, run } from './support/random-run.ts';
import type { Scenario } from './support/scenario.ts';

/*
 * merge_queue.bisect_aside_split (app/queue/split.ts) on random configurations with it always on,
 * so that failed batches are split in every run (the shared configArb turns it on a third of the
 * time, and bisect_aside half of that): the invariants hold, nothing is left behind, a replay
 * and a reload give the same outputs.
 */
const RUNS = Number(process.env.QUEUE_PROPERTY_RUNS ?? 40);
const PROPERTY = { numRuns: RUNS, seed: 20261129 };

// Batches of two or more, so that a failure is split rather than dropped.
const splitConfigArb = fc.tuple(configArb, fc.constantFrom(2, 3, 4)).map(([config, split]) => ({
  ...config,
  queue_rules: (config.queue_rules ?? []).map((rule) => {
    const size = typeof rule.batch_size === 'object' ? rule.batch_size : { min: 1, max: 1 };
    return { ...rule, batch_size: { min: Math.max(2, size.min ?? 1), max: Math.max(3, size.max) } };
  }),
  merge_queue: { ...config.merge_queue, bisect_aside: true, bisect_aside_split: split },
}));
// Ten pull requests queued at once, in a random order, then random inputs: batches of several.
const actionsArb = fc
  .tuple(
    fc.shuffledSubarray([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], { minLength: 10 }),
    fc.array(actionArb, { maxLength: 30 }),
  )
  .map(([order, rest]): Action[] => [...order.map((pr) => ({ kind: 'queue' as const, pr })), ...rest]);
const badArb = fc.subarray([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], { minLength: 1, maxLength: 3 });

const outputs = (s: Scenario) =>
  JSON.stringify(
    s.log.map((r) => ({ at: r.at, input: r.input, effects: r.effects, events: r.events, state: r.state })),
  );

describe('bisect_aside_split on random input sequences', () => {
  it('keeps the invariants, splits failed batches, and leaves nothing behind', () => {
    let splits = 0;
    fc.assert(
      fc.property(splitConfigArb, actionsArb, fc.integer(), badArb, (config, actions, seed, bad) => {
        const s = run(config, actions, randomOracle(seed, bad), seed);
        const skipIntermediate = s.state.config.merge_queue.skip_intermediate_results;
        expect(checkAll(s.log, { verdicts: s.verdicts, tested: s.tested(), skipIntermediate })).toEqual([]);
        // After the last input every pull request has merged or left (or waits on a conflict ahead).
        const stuck = Object.values(s.state.sessions).filter((x) => x.waitingForAhead === null);
        expect(stuck.map((x) => x.number)).toEqual([]);
        const split = s.log.some((r) =>
          r.events.some(
            (e) => e.type === 'action.queue.checks_start' && e.metadata.start_reason.includes('split from'),
          ),
        );
        if (split) splits++;
      }),
      PROPERTY,
    );
    // The property is about splits: a good share of the runs must have split a failed batch.
    expect(splits).toBeGreaterThan(RUNS / 5);
  });

  it('the same inputs give byte-identical outputs, from memory or from a state loaded from storage', () => {
    fc.assert(
      fc.property(splitConfigArb, actionsArb, fc.integer(), badArb, (config, actions, seed, bad) => {
        const a = run(config, actions, randomOracle(seed, bad), seed);
        const b = run(config, actions, randomOracle(seed, bad), seed);
        const loaded = run(config, actions, randomOracle(seed, bad), seed, { reload: true });
        expect(outputs(b)).toBe(outputs(a));
        expect(outputs(loaded)).toBe(outputs(a));
      }),
      { ...PROPERTY, numRuns: Math.ceil(RUNS / 2) },
    );
  });
});
