import { describe, expect, it } from 'vitest';
import {
  areaName,
  generateWorkload,
  OFFICE_HOURS_PROFILE,
  type WorkloadSpec,
} from '../../app/sim/workload.ts';

const DAY = 86_400_000;
const spec: WorkloadSpec = {
  seed: 21,
  durationMs: 14 * DAY,
  ratePerHour: 10,
  areas: 10,
  areaSkew: 1,
  secondAreaRate: 0.1,
  badRate: 0.05,
  conflictRate: 0.05,
  conflictWindowMs: 3_600_000,
  hotfixRate: 0.02,
};

describe('workload', () => {
  it('is the same for the same seed', () => {
    expect(generateWorkload(spec)).toEqual(generateWorkload(spec));
    expect(generateWorkload({ ...spec, seed: 22 })).not.toEqual(generateWorkload(spec));
  });

  it('arrives at the mean rate, in time order, numbered from 1', () => {
    const items = generateWorkload(spec);
    expect(items.length / (14 * 24)).toBeGreaterThan(9.3);
    expect(items.length / (14 * 24)).toBeLessThan(10.7);
    expect(items.map((i) => i.pullRequest.number)).toEqual(items.map((_, i) => i + 1));
    expect(items.every((item, i) => i === 0 || item.at >= items[i - 1]!.at)).toBe(true);
  });

  it('follows the daily profile and the bursts', () => {
    const items = generateWorkload({ ...spec, dailyProfile: OFFICE_HOURS_PROFILE });
    const hourOf = (at: number) => Math.floor(at / 3_600_000) % 24;
    const night = items.filter((i) => hourOf(i.at) >= 2 && hourOf(i.at) < 5).length;
    const peak = items.filter((i) => hourOf(i.at) >= 14 && hourOf(i.at) < 17).length;
    expect(peak / night).toBeGreaterThan(10);
    const burst = generateWorkload({ ...spec, bursts: [{ startMs: DAY, durationMs: 2 * DAY, factor: 3 }] });
    const inBurst = burst.filter((i) => i.at >= DAY && i.at < 3 * DAY).length;
    expect(inBurst / 48).toBeGreaterThan(25);
  });

  it('adds daily drops on top of the same Poisson arrivals: count PRs within the window, every day', () => {
    const plain = generateWorkload(spec);
    const drop = { offsetMs: 9 * 3_600_000, withinMs: 10 * 60_000, count: 80 };
    const items = generateWorkload({ ...spec, dailyDrops: [drop] });
    expect(items.length).toBe(plain.length + 14 * 80);
    expect(items.map((i) => i.pullRequest.number)).toEqual(items.map((_, i) => i + 1));
    expect(items.every((item, i) => i === 0 || item.at >= items[i - 1]!.at)).toBe(true);
    const times = new Set(items.map((i) => i.at));
    expect(plain.every((i) => times.has(i.at))).toBe(true);
    for (let day = 0; day < 14; day++) {
      const from = day * DAY + drop.offsetMs;
      const inWindow = (list: typeof items) =>
        list.filter((i) => i.at >= from && i.at <= from + drop.withinMs);
      expect(inWindow(items).length - inWindow(plain).length).toBe(80);
    }
  });

  it('draws areas from a Zipf law, bad pull requests with probability p, and hotfixes', () => {
    const items = generateWorkload(spec);
    const inArea = (n: number) => items.filter((i) => i.pullRequest.areas.includes(areaName(n))).length;
    expect(inArea(0)).toBeGreaterThan(inArea(1));
    expect(inArea(1)).toBeGreaterThan(inArea(5));
    const bad = items.filter((i) => i.pullRequest.bad).length / items.length;
    expect(bad).toBeGreaterThan(0.035);
    expect(bad).toBeLessThan(0.065);
    expect(items.some((i) => i.hotfix)).toBe(true);
    expect(
      items.every((i) => i.files.every((f, k) => f.startsWith(`areas/${i.pullRequest.areas[k]}/`))),
    ).toBe(true);
  });

  it('makes conflicts symmetric, within the window, between pull requests of a shared area', () => {
    const items = generateWorkload(spec);
    const byNumber = new Map(items.map((i) => [i.pullRequest.number, i]));
    let pairs = 0;
    for (const item of items) {
      for (const other of item.pullRequest.conflictsWith) {
        const partner = byNumber.get(other)!;
        pairs++;
        expect(partner.pullRequest.conflictsWith).toContain(item.pullRequest.number);
        expect(Math.abs(partner.at - item.at)).toBeLessThanOrEqual(spec.conflictWindowMs);
        expect(partner.pullRequest.areas.some((a) => item.pullRequest.areas.includes(a))).toBe(true);
      }
    }
    expect(pairs).toBeGreaterThan(0);
  });
});
