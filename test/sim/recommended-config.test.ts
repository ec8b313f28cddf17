import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseConfig } from '../../app/config/load-config.ts';
import { decidePartitions } from '../../app/queue/partitions.ts';
import {
  OWN_PARTITIONS,
  RECOMMENDED_CONFIG,
  recommendedConfigFor,
} from '../../app/sim/recommended-config.ts';
import { findScenario, SCENARIOS } from '../../app/sim/scenarios.ts';
import { areaName } from '../../app/sim/workload.ts';

const NOW = new Date('2026-01-05T10:00:00Z');

/** What a user would commit as `.github/trainyard.yml`, read back the way the app reads it. */
function asCommitted(config: unknown) {
  const result = parseConfig(stringify(config));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

function factsTouching(areas: string[]) {
  return {
    number: 1,
    base: 'main',
    head: 'change-1',
    author: 'someone',
    labels: [],
    title: 'Change',
    body: '',
    draft: false,
    files: areas.map((area) => `areas/${area}/change-1.ts`),
    checkRuns: [],
    approvedReviewsBy: [],
    changesRequestedReviewsBy: [],
  };
}

describe("the benchmark's recommended configurations", () => {
  it('are valid .github/trainyard.yml files for every scenario, the adaptive mode in each', () => {
    for (const scenario of SCENARIOS) {
      const config = asCommitted(recommendedConfigFor(scenario));
      expect(config.merge_queue.mode).toBe('adaptive');
      if (!scenario.partitionByArea) {
        expect(config).toEqual(asCommitted(RECOMMENDED_CONFIG));
        expect(config.partition_rules).toEqual([]);
      }
    }
  });

  it('differ between scenarios only by the partition rules a monorepo declares', () => {
    const monorepo = asCommitted(recommendedConfigFor(findScenario('monorepo')));
    const plain = asCommitted(RECOMMENDED_CONFIG);
    expect(monorepo.partition_rules.length).toBe(OWN_PARTITIONS + 1);
    expect({ ...monorepo, partition_rules: [] }).toEqual(plain);
  });

  it('put a monorepo pull request of one area in exactly one lane: its own, or the one the small areas share', () => {
    const scenario = findScenario('monorepo');
    const config = asCommitted(recommendedConfigFor(scenario));
    const areas = Array.from({ length: scenario.workload.areas }, (_, i) => areaName(i));
    const lanes = areas.map((area) => decidePartitions(config, factsTouching([area]), NOW));
    expect(lanes.slice(0, OWN_PARTITIONS)).toEqual(areas.slice(0, OWN_PARTITIONS).map((a) => [a]));
    expect(lanes.slice(OWN_PARTITIONS)).toEqual(areas.slice(OWN_PARTITIONS).map(() => ['other-areas']));
    // Two areas with lanes of their own: validated in both.
    expect(decidePartitions(config, factsTouching([areas[0]!, areas[1]!]), NOW)).toEqual([
      areas[0],
      areas[1],
    ]);
  });
});
