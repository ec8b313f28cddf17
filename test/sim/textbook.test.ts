import { describe, expect, it } from 'vitest';
import { BorsPolicy } from '../../app/sim/policies/bors.ts';
import { GithubPolicy } from '../../app/sim/policies/github.ts';
import { SerialPolicy } from '../../app/sim/policies/serial.ts';
import { TrainyardPolicy } from '../../app/sim/policies/trainyard.ts';
import { ZuulPolicy } from '../../app/sim/policies/zuul.ts';
import { simulate } from '../../app/sim/simulator.ts';
import { fixedSimulation, mergeMinutes } from './support/fixed-workload.ts';

/* Textbook cases: 7 pull requests queued at once, 10-minute CI, no flakiness; merge minute of each. */

const seven = (bad: number[] = []) =>
  fixedSimulation({ arrivals: [0, 0, 0, 0, 0, 0, 0], ciMinutes: 10, bad });

describe('textbook cases', () => {
  it('Trainyard, batches of 3 × 2 parallel checks: two batches at once, then the last PR', () => {
    const policy = new TrainyardPolicy({
      config: {
        queue_rules: [{ name: 'default', batch_size: 3 }],
        merge_queue: { max_parallel_checks: 2 },
      },
      seed: 1,
    });
    const record = simulate(seven(), policy);
    expect(mergeMinutes(record)).toEqual({ 1: 10, 2: 10, 3: 10, 4: 10, 5: 10, 6: 10, 7: 20 });
    expect(record.ci.runs).toBe(3);
  });

  it('serial: one run per pull request, one after the other', () => {
    const record = simulate(seven(), new SerialPolicy());
    expect(mergeMinutes(record)).toEqual({ 1: 10, 2: 20, 3: 30, 4: 40, 5: 50, 6: 60, 7: 70 });
  });

  it('GitHub style, build concurrency 2: two cumulative groups at a time', () => {
    const record = simulate(seven(), new GithubPolicy(2));
    expect(mergeMinutes(record)).toEqual({ 1: 10, 2: 10, 3: 20, 4: 20, 5: 30, 6: 30, 7: 40 });
    expect(record.ci.runs).toBe(7);
  });

  it('bors-ng style: one batch of all seven; with #4 bad, halves until #4 is alone', () => {
    expect(mergeMinutes(simulate(seven(), new BorsPolicy()))).toEqual({
      1: 10,
      2: 10,
      3: 10,
      4: 10,
      5: 10,
      6: 10,
      7: 10,
    });
    // 0–10 all fail; [1-3] passes at 20; [4-7] fails at 30; [4,5] fails at 40; [4] fails at 50;
    // [5] passes at 60; [6,7] passes at 70.
    const record = simulate(seven([4]), new BorsPolicy());
    expect(mergeMinutes(record)).toEqual({ 1: 20, 2: 20, 3: 20, 4: null, 5: 60, 6: 70, 7: 70 });
    expect(record.pullRequests[3]!.ejections).toHaveLength(1);
  });

  it('Zuul style: every change tested on the ones ahead at once; a bad one restarts those behind it', () => {
    expect(mergeMinutes(simulate(seven(), new ZuulPolicy()))).toEqual({
      1: 10,
      2: 10,
      3: 10,
      4: 10,
      5: 10,
      6: 10,
      7: 10,
    });
    const record = simulate(seven([4]), new ZuulPolicy());
    expect(mergeMinutes(record)).toEqual({ 1: 10, 2: 10, 3: 10, 4: null, 5: 20, 6: 20, 7: 20 });
    // 7 first runs, then #5–#7 again without #4.
    expect(record.ci.runs).toBe(10);
  });
});
