import { describe, expect, it } from 'vitest';
import { nockCombinedStatus, nockListCheckRuns } from '../../support/nock/checks.ts';
import { checkRunJson, commitStatusJson } from '../../support/nock/fixtures.ts';
import { useGithubNock } from '../../support/nock/github-nock.ts';

const github = useGithubNock();

describe('listChecks: check runs and commit statuses as the engine sees them', () => {
  it('maps every conclusion and phase faithfully, and a status context is a check name', async () => {
    nockListCheckRuns(github, {
      sha: 'tested-1',
      pages: [
        [
          checkRunJson({ id: 1, name: 'build', conclusion: 'success' }),
          checkRunJson({ id: 2, name: 'lint', conclusion: 'failure' }),
          checkRunJson({ id: 3, name: 'docs', conclusion: 'neutral' }),
          checkRunJson({ id: 4, name: 'e2e', conclusion: 'cancelled' }),
          checkRunJson({ id: 5, name: 'windows', conclusion: 'skipped' }),
        ],
        [
          checkRunJson({ id: 6, name: 'bench', conclusion: 'timed_out' }),
          checkRunJson({ id: 7, name: 'deploy', conclusion: 'action_required' }),
          checkRunJson({ id: 8, name: 'old', conclusion: 'stale' as 'neutral' }),
          checkRunJson({ id: 9, name: 'broken-yaml', conclusion: 'startup_failure' as 'failure' }),
          checkRunJson({ id: 10, name: 'queued', status: 'queued', conclusion: null, completed_at: null }),
          checkRunJson({
            id: 11,
            name: 'running',
            status: 'in_progress',
            conclusion: null,
            completed_at: null,
          }),
          checkRunJson({ id: 12, name: 'waiting', status: 'waiting', conclusion: null, completed_at: null }),
        ],
      ],
    });
    nockCombinedStatus(github, {
      sha: 'tested-1',
      pages: [
        [
          commitStatusJson({ context: 'ci/jenkins', state: 'success' }),
          commitStatusJson({ context: 'ci/circle', state: 'failure' }),
          commitStatusJson({ context: 'ci/travis', state: 'error' }),
          commitStatusJson({ context: 'ci/buildkite', state: 'pending', description: null }),
        ],
      ],
    });

    const checks = await github.client().listChecks('tested-1');

    expect(checks.map((c) => `${c.name}: ${c.state}`)).toMatchInlineSnapshot(`
      [
        "build: success",
        "lint: failure",
        "docs: neutral",
        "e2e: cancelled",
        "windows: skipped",
        "bench: timed_out",
        "deploy: action_required",
        "old: stale",
        "broken-yaml: failure",
        "queued: pending",
        "running: pending",
        "waiting: pending",
        "ci/jenkins: success",
        "ci/circle: failure",
        "ci/travis: error",
        "ci/buildkite: pending",
      ]
    `);
    expect(github.requests.map((r) => r.request)).toMatchInlineSnapshot(`
      [
        "GET /repos/acme/widgets/commits/tested-1/check-runs?per_page=100",
        "GET /repos/acme/widgets/commits/tested-1/check-runs?per_page=100&page=2",
        "GET /repos/acme/widgets/commits/tested-1/status?per_page=100",
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('keeps the link, description, avatar and times a check reports', async () => {
    nockListCheckRuns(github, {
      sha: 'tested-1',
      pages: [
        [
          checkRunJson({ id: 1, name: 'build', conclusion: 'success' }),
          checkRunJson({
            id: 2,
            name: 'running',
            status: 'in_progress',
            conclusion: null,
            details_url: null,
            html_url: 'https://github.test/runs/2',
          }),
        ],
      ],
    });
    nockCombinedStatus(github, {
      sha: 'tested-1',
      pages: [
        [
          commitStatusJson({ context: 'ci/jenkins', state: 'success' }),
          commitStatusJson({ context: 'ci/slow', state: 'pending' }),
        ],
      ],
    });

    expect(await github.client().listChecks('tested-1')).toMatchInlineSnapshot(`
      [
        {
          "avatarUrl": "https://avatars.test/actions",
          "completedAt": "2026-11-20T10:05:00Z",
          "description": "build passed",
          "name": "build",
          "startedAt": "2026-11-20T10:00:00Z",
          "state": "success",
          "url": "https://ci.test/runs/1",
        },
        {
          "avatarUrl": "https://avatars.test/actions",
          "completedAt": null,
          "description": "running passed",
          "name": "running",
          "startedAt": "2026-11-20T10:00:00Z",
          "state": "pending",
          "url": "https://github.test/runs/2",
        },
        {
          "avatarUrl": "https://avatars.test/ci",
          "completedAt": "2026-11-20T10:07:00Z",
          "description": "ci/jenkins is success",
          "name": "ci/jenkins",
          "startedAt": "2026-11-20T10:00:00Z",
          "state": "success",
          "url": "https://ci.test/ci/jenkins",
        },
        {
          "avatarUrl": "https://avatars.test/ci",
          "completedAt": null,
          "description": "ci/slow is pending",
          "name": "ci/slow",
          "startedAt": "2026-11-20T10:00:00Z",
          "state": "pending",
          "url": "https://ci.test/ci/slow",
        },
      ]
    `);
    expect(github.isDone()).toBe(true);
  });

  it('walks the pages of the combined status', async () => {
    const statuses = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) =>
        commitStatusJson({ context: `ci/${from + i}`, state: 'success' }),
      );
    nockListCheckRuns(github, { sha: 'tested-1', pages: [[]] });
    nockCombinedStatus(github, { sha: 'tested-1', pages: [statuses(0, 100), statuses(100, 3)] });

    const checks = await github.client().listChecks('tested-1');

    expect(checks).toHaveLength(103);
    expect(checks.at(-1)).toMatchObject({ name: 'ci/102', state: 'success' });
    expect(github.isDone()).toBe(true);
  });
});
