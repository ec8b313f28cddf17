import { formatDuration } from '../config/duration.ts';
import { areaName } from '../sim/workload.ts';
import type { Repository } from './entities.ts';
import type { SandboxGithub } from './model.ts';

/** The repository `npm start` runs the queue on when there is no GitHub. */
export const DEMO_REPOSITORY = { owner: 'demo', name: 'widgets' } as const;

/** An admin of the demo repository: pushes to main from outside the queue, and may run every command. */
export const DEMO_MAINTAINER = 'mona';

/** Contributors with write permission: they open the pull requests and queue them. */
export const DEMO_AUTHORS: readonly string[] = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];

/** The label that the configuration's priority rule ranks first. */
export const HOTFIX_LABEL = 'hotfix';

/**
 * The demo's `.github/trainyard.yml`: the recommended configuration (app/sim/recommended-config.ts,
 * what the benchmark measures), written out with comments because a newcomer reads it in the
 * sandbox. `checks_timeout` is an hour rather than none: the sandbox's CI never waits for a
 * runner, so a batch silent for an hour is a lost run, not a slow one. At a pace above 1, the
 * demo's durations are that many times shorter (decision 0030), and so are these two (1s at least).
 */
export function demoConfigYaml(pace = 1): string {
  const shortened = (seconds: number) => formatDuration(Math.max(1, Math.round(seconds / pace)));
  return `# Trainyard's configuration of the sandbox's demo repository.
${
  pace === 1
    ? ''
    : `# The sandbox runs ${pace}× faster than a real repository: its CI runs and these waits are ${pace}× shorter.
`
}queue_rules:
  - name: default
    # The sandbox's CI runs one check, named ci, on every push.
    merge_conditions:
      - check-success=ci
    # Small batches when the queue is short, up to 6 when it is long.
    batch_size:
      min: 2
      max: 6
    batch_max_wait_time: ${shortened(5 * 60)}
    checks_timeout: ${shortened(60 * 60)}
    # A retry costs a whole run and most failures are real: bisect at once instead.
    max_checks_retries: 0

priority_rules:
  # Pull requests labelled hotfix go first, interrupting running batches of lower priority.
  - name: hotfix
    conditions:
      - label=${HOTFIX_LABEL}
    priority: high

merge_queue:
  max_parallel_checks: 3
  # A failed batch is bisected aside; the pull requests behind it do not wait for it.
  bisect_aside: true
`;
}

/** The configuration at the pace of a real repository. */
export const DEMO_CONFIG_YAML = demoConfigYaml();

const ciWorkflow = `# The sandbox runs this workflow itself (app/sandbox/ci.ts): one job, ci, on every push.
name: CI
on: push
jobs:
  ci:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: npm test
`;

/**
 * Creates the demo repository: a README, the configuration, a CI workflow and one module per
 * area of code (the workload's pull requests add files under `areas/<area>/`), the hotfix
 * label, a maintainer and the authors as collaborators.
 */
export function createDemoRepository(
  github: SandboxGithub,
  params: { areas: number; pace?: number },
): Repository {
  const files: Record<string, string> = {
    'README.md': `# ${DEMO_REPOSITORY.name}\n\nThe demo repository of Trainyard's sandbox.\n`,
    '.github/trainyard.yml': demoConfigYaml(params.pace),
    '.github/workflows/ci.yml': ciWorkflow,
  };
  for (let i = 0; i < params.areas; i++)
    files[`areas/${areaName(i)}/index.ts`] = `// ${areaName(i)}: its changes are added below.\n`;
  const repo = github.createRepository({ ...DEMO_REPOSITORY, ownerType: 'Organization', files });
  github.issues.createLabel(repo, {
    name: HOTFIX_LABEL,
    color: 'b60205',
    description: 'Ranked first by the merge queue',
  });
  github.grant(repo, DEMO_MAINTAINER, 'admin');
  for (const author of DEMO_AUTHORS) github.grant(repo, author, 'write');
  return repo;
}
