import { BorsPolicy } from './policies/bors.ts';
import { GithubPolicy } from './policies/github.ts';
import { OraclePolicy } from './policies/oracle.ts';
import { SerialPolicy } from './policies/serial.ts';
import { TrainyardPolicy } from './policies/trainyard.ts';
import { ZuulPolicy } from './policies/zuul.ts';
import type { QueuePolicy } from './policy.ts';
import { recommendedConfigFor } from './recommended-config.ts';
import type { Scenario } from './scenarios.ts';

/** The policies the benchmark compares on a scenario, in table order. */
export interface RosterEntry {
  name: string;
  kind: 'trainyard' | 'baseline' | 'oracle';
  make: (seed: number) => QueuePolicy;
}

export function createRoster(scenario: Scenario): RosterEntry[] {
  return [
    {
      name: 'trainyard',
      kind: 'trainyard',
      make: (seed) => new TrainyardPolicy({ config: recommendedConfigFor(scenario), seed }),
    },
    { name: 'serial', kind: 'baseline', make: () => new SerialPolicy() },
    // Build concurrency D = C: GitHub's setting at its strongest here (default 5, up to 100).
    {
      name: `github (D=${scenario.capacity})`,
      kind: 'baseline',
      make: () => new GithubPolicy(scenario.capacity),
    },
    { name: 'bors-ng', kind: 'baseline', make: () => new BorsPolicy() },
    { name: 'zuul', kind: 'baseline', make: () => new ZuulPolicy() },
    { name: 'oracle (latency)', kind: 'oracle', make: () => new OraclePolicy('latency') },
    { name: 'oracle (ci)', kind: 'oracle', make: () => new OraclePolicy('ci') },
  ];
}
